"""The course's own forward pass for SmolLM2-135M-Instruct: a small Llama (RMSNorm, grouped-query attention, SwiGLU,
tied embeddings) whose rotary step is :mod:`helpers.rope` with frequencies from :mod:`helpers.scaling`.

One block, for a sequence x of shape (T, d_model) (Llama, arXiv 2302.13971 §2; GQA, arXiv 2305.13245):

    h  = x + W_o · Attn(RoPE(W_q·n1(x)), RoPE(W_k·n1(x)), W_v·n1(x))      n(x) = x / rms(x) · g   (RMSNorm)
    x' = h + W_down · (silu(W_gate·n2(h)) ⊙ W_up·n2(h))                      (SwiGLU, arXiv 2002.05202)

9 query heads share 3 key/value heads (each K/V head serves 3 query heads). Logits = n(x_final) · Eᵀ with E the
token embedding (tied head; a file with an ``output.weight`` tensor uses that instead: ``self.head``). The
49152-way head and the loss are computed over ``chunk`` rows at a time, so the (T, 49152) logits tensor (3.2 GB at
16k tokens) never exists.

RoPE layout: the GGUF's W_q/W_k rows are stored for *interleaved* rotation (see :mod:`helpers.real.gguf_load`);
``layout="half_split"`` permutes them with :func:`helpers.rope.permute_qk_rows` (what HF does on load) and rotates
half-split pairs; ``permute_rows=False`` shows what happens if you forget.

Scaling methods are named by :data:`helpers.scaling.ROPE_SCALING` keys; :func:`rope_parameters` builds the HF-style
dict (``rope_type``, ``factor``, ``original_max_position_embeddings``) that :func:`helpers.scaling.rope_parameters_from_config`
turns into (inv_freq, attention_factor). Used by notebook 07.
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F

from helpers._checks import check_choice, check_int
from helpers.real.gguf_load import LlamaConfig
from helpers.rope import LAYOUTS, apply_rope, permute_qk_rows, rope_cos_sin
from helpers.scaling import methods_in, rope_parameters_from_config, scaling_config

__all__ = ["EVAL_METHODS", "RealLlama", "rope_parameters"]

#: The scaling methods notebook 07 measures: the registry's methods shown in panel ``"real"``
#: (:data:`helpers.scaling.ROPE_SCALING`), in its order.
EVAL_METHODS = methods_in("real")


def rope_parameters(method: str, factor: float = 2.0, *, original_max_position_embeddings: int = 8192) -> dict:
    """The HF-style ``rope_parameters`` dict of ``method`` at scale ``factor`` for a model trained on L tokens.

    :func:`helpers.scaling.scaling_config` with ``hf=True``: ``default`` ignores ``factor``; methods that read L
    get ``original_max_position_embeddings`` (HF 5.x needs it); dynamic NTK keeps factor s (HF's formula); Llama 3
    gets Meta's low/high frequency factors 1 and 4; YaRN HF's β_fast = 32, β_slow = 1 (its defaults).
    """
    return scaling_config(method, factor, original_max_position_embeddings, hf=True)


class KVCache:
    """Per-layer rotated keys and values, (n_kv_heads, T_cached, D) each. Keys keep the rotation they were
    written with (what HF's generate does under dynamic NTK)."""

    def __init__(self, n_layers: int):
        self.k: list[torch.Tensor | None] = [None] * n_layers
        self.v: list[torch.Tensor | None] = [None] * n_layers

    @property
    def length(self) -> int:
        return 0 if self.k[0] is None else self.k[0].shape[-2]

    def append(self, layer: int, k: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        if self.k[layer] is not None:
            k = torch.cat([self.k[layer], k], dim=-2)  # (Hkv, T_cached + T, D)
            v = torch.cat([self.v[layer], v], dim=-2)  # (Hkv, T_cached + T, D)
        self.k[layer], self.v[layer] = k, v
        return k, v


@torch.inference_mode()
def chunked_head_losses(
    hidden: torch.Tensor, head: torch.Tensor, targets, *, chunk: int
) -> tuple[np.ndarray, np.ndarray]:
    """Cross-entropy (nats) and argmax-correctness of ``targets`` (N,) from ``hidden`` (N, d) under the output head
    ``head`` (V, d), ``chunk`` rows at a time so that only a (chunk, V) block of logits exists at once.
    Returns float64 (N,) and bool (N,). Used by SmolLM2's and Gemma 3's models (vocabularies of 49,152 and 262,144).
    """
    chunk = check_int("chunk", chunk, minimum=1)
    targets = torch.as_tensor(targets, dtype=torch.long).reshape(-1)  # (N,)
    if targets.numel() != hidden.shape[0]:
        raise ValueError(f"targets has {targets.numel()} entries but hidden has {hidden.shape[0]} rows")
    losses, hits = [], []
    for a in range(0, targets.numel(), chunk):
        logits = hidden[a : a + chunk] @ head.T  # (chunk, V)
        t = targets[a : a + chunk]  # (chunk,)
        losses.append(F.cross_entropy(logits, t, reduction="none").double())  # (chunk,)
        hits.append(logits.argmax(-1) == t)  # (chunk,)
    return torch.cat(losses).numpy(), torch.cat(hits).numpy()  # (N,), (N,)


class RealLlama:
    """Inference-only Llama over the dequantised GGUF weights (float32, CPU, no autograd).

    ``weights``: GGUF names -> tensors from :func:`helpers.real.gguf_load.load_weights`.
    ``layout``: the RoPE layout to rotate with; ``permute_rows``: reorder W_q/W_k rows to match it (default True;
    the GGUF is interleaved, so ``layout="half_split", permute_rows=False`` is the classic bug).
    """

    def __init__(
        self,
        config: LlamaConfig,
        weights: dict[str, torch.Tensor],
        *,
        layout: str = "interleaved",
        permute_rows: bool = True,
    ):
        self.config = config
        self.layout = check_choice("layout", layout, LAYOUTS)
        c = config
        self.embed = weights["token_embd.weight"]  # (V, d_model)
        if not c.tied_embeddings and "output.weight" not in weights:
            raise ValueError("config.tied_embeddings is False but weights has no 'output.weight' (the untied head)")
        self.head = self.embed if c.tied_embeddings else weights["output.weight"]  # (V, d_model): the output head
        self.norm = weights["output_norm.weight"]  # (d_model,)
        self.layers = []
        for i in range(c.n_layers):
            w = {k.split(".", 2)[2]: v for k, v in weights.items() if k.startswith(f"blk.{i}.")}
            wq, wk = w["attn_q.weight"], w["attn_k.weight"]  # (H·D, d_model), (Hkv·D, d_model)
            if layout == "half_split" and permute_rows:
                wq = permute_qk_rows(wq, c.n_heads, to="half_split")  # (H·D, d_model)
                wk = permute_qk_rows(wk, c.n_kv_heads, to="half_split")  # (Hkv·D, d_model)
            # one matmul for q, k, v: rows [q | k | v]
            qkv = torch.cat([wq, wk, w["attn_v.weight"]], dim=0)  # ((H + 2·Hkv)·D, d_model)
            gate_up = torch.cat([w["ffn_gate.weight"], w["ffn_up.weight"]], dim=0)  # (2·F, d_model)
            self.layers.append(
                {
                    "n1": w["attn_norm.weight"],
                    "qkv": qkv,
                    "o": w["attn_output.weight"],
                    "n2": w["ffn_norm.weight"],
                    "gate_up": gate_up,
                    "down": w["ffn_down.weight"],
                }
            )

    # ------------------------------------------------------------------ pieces
    def rms_norm(self, x: torch.Tensor, g: torch.Tensor) -> torch.Tensor:
        """n(x) = x / sqrt(mean(x²) + ε) · g (Zhang & Sennrich 2019, arXiv 1910.07467). x: (..., d_model)."""
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.config.rms_eps) * g  # (..., d_model)

    def rotary(self, method: str = "default", factor: float = 2.0, *, seq_len: int | None = None):
        """(inv_freq (D/2,), attention_factor) of ``method`` for this model, from :mod:`helpers.scaling`.

        ``seq_len``: the current length (dynamic NTK recomputes its base from it, as HF does with max position + 1).
        A GGUF with its own RoPE scaling (``config.rope_scaling``) runs it as ``default``; other methods are refused.
        """
        c = self.config
        if c.rope_scaling is not None and method != "default":
            raise ValueError(
                f"this model's file already scales RoPE ({c.rope_scaling}); method must be 'default' (its own "
                f"scaling), got {method!r}: stacking another method on it is not supported"
            )
        params = c.rope_scaling or rope_parameters(method, factor, original_max_position_embeddings=c.context_length)
        return rope_parameters_from_config(
            params,
            head_dim=c.head_dim,
            base=c.rope_base,
            max_position_embeddings=c.context_length,
            seq_len=seq_len,
        )

    def cos_sin(self, positions: torch.Tensor, method: str, factor: float, *, seq_len: int | None = None):
        """cos and sin (T, D/2), already multiplied by the method's attention factor."""
        inv_freq, a = self.rotary(method, factor, seq_len=seq_len)
        return rope_cos_sin(positions.numpy(), inv_freq, attention_factor=a)  # (T, D/2) each

    # ------------------------------------------------------------------ forward pass
    @torch.inference_mode()
    def hidden_states(
        self,
        ids,
        *,
        method: str = "default",
        factor: float = 2.0,
        cache: KVCache | None = None,
        capture: dict | None = None,
        rope_seq_len: int | None = None,
    ) -> torch.Tensor:
        """Final normalised hidden states (T, d_model) of token ids (T,), one sequence.

        ``cache``: a :class:`KVCache` holding earlier tokens; the new ones get positions after them, and the
        rotation for this call is computed with seq_len = cached + new (so dynamic NTK changes base between calls
        while the cached keys keep theirs). ``capture``: a dict with key ``"layers"`` (a set of layer indices);
        for those layers the un-rotated q, k (H or Hkv, T, D) and the rotated ones are stored in it.
        ``rope_seq_len``: compute the rotation as if the sequence were this long (only dynamic NTK depends on it;
        a windowed run uses it to keep its full-context run's frequencies). Default: cached + new tokens.
        """
        c = self.config
        ids = torch.as_tensor(ids, dtype=torch.long).reshape(-1)  # (T,)
        start = 0 if cache is None else cache.length
        T = ids.numel()
        positions = torch.arange(start, start + T)  # (T,)
        seq_len = start + T if rope_seq_len is None else check_int("rope_seq_len", rope_seq_len, minimum=1)
        cos, sin = self.cos_sin(positions, method, factor, seq_len=seq_len)  # (T, D/2) each
        x = self.embed[ids]  # (T, d_model)
        H, Hkv, D = c.n_heads, c.n_kv_heads, c.head_dim
        for i, L in enumerate(self.layers):
            h = self.rms_norm(x, L["n1"])  # (T, d_model)
            q, k, v = (h @ L["qkv"].T).split([H * D, Hkv * D, Hkv * D], dim=-1)  # (T, H·D), (T, Hkv·D) x2
            q = q.view(T, H, D).transpose(0, 1)  # (H, T, D)
            k = k.view(T, Hkv, D).transpose(0, 1)  # (Hkv, T, D)
            v = v.view(T, Hkv, D).transpose(0, 1)  # (Hkv, T, D)
            qr = apply_rope(q, cos, sin, layout=self.layout)  # (H, T, D)
            kr = apply_rope(k, cos, sin, layout=self.layout)  # (Hkv, T, D)
            if capture is not None and i in capture.get("layers", ()):
                capture[i] = {"q": q.clone(), "k": k.clone(), "q_rot": qr.clone(), "k_rot": kr.clone()}
            if cache is not None:
                kr, v = cache.append(i, kr, v)  # (Hkv, T_all, D) each
            group = H // Hkv  # each K/V head serves `group` query heads
            kx = kr.repeat_interleave(group, dim=0)[None]  # (1, H, T_all, D)
            vx = v.repeat_interleave(group, dim=0)[None]  # (1, H, T_all, D)
            # 4-D inputs: PyTorch's CPU flash kernel (memory O(T)); 3-D ones fall back to the O(T²) math path
            if start == 0:
                att = F.scaled_dot_product_attention(qr[None], kx, vx, is_causal=True)[0]  # (H, T, D)
            else:  # query t (absolute start + t) sees keys 0 .. start + t
                mask = torch.ones(T, start + T, dtype=torch.bool).tril(diagonal=start)  # (T, T_all)
                att = F.scaled_dot_product_attention(qr[None], kx, vx, attn_mask=mask)[0]  # (H, T, D)
            x = x + att.transpose(0, 1).reshape(T, H * D) @ L["o"].T  # (T, d_model)
            h = self.rms_norm(x, L["n2"])  # (T, d_model)
            gate, up = (h @ L["gate_up"].T).chunk(2, dim=-1)  # (T, F) each
            x = x + (F.silu(gate) * up) @ L["down"].T  # (T, d_model)
        return self.rms_norm(x, self.norm)  # (T, d_model)

    @torch.inference_mode()
    def logits(self, ids, **kwargs) -> torch.Tensor:
        """Full logits (T, V): for short inputs only (V = 49152 floats per token); see :meth:`token_losses`."""
        return self.hidden_states(ids, **kwargs) @ self.head.T  # (T, V)

    @torch.inference_mode()
    def head_losses(self, hidden: torch.Tensor, targets, *, chunk: int = 1024) -> tuple[np.ndarray, np.ndarray]:
        """Cross-entropy (nats) and argmax-correctness of predicting ``targets`` (N,) from ``hidden`` (N, d_model),
        ``chunk`` rows of the 49152-way head at a time. Returns float64 (N,) and bool (N,)."""
        return chunked_head_losses(hidden, self.head, targets, chunk=chunk)

    def token_losses(
        self, ids, *, method: str = "default", factor: float = 2.0, chunk: int = 1024, kv_chunk: int | None = None
    ) -> np.ndarray:
        """Loss (nats) of predicting token t+1 from tokens 0..t, for t = 0..T-2: float64 (T-1,).

        ``kv_chunk``: feed the sequence ``kv_chunk`` tokens at a time through a KV cache instead of one pass (the
        rotation of each piece is computed at that moment's length: dynamic NTK as generation sees it).
        """
        ids = torch.as_tensor(ids, dtype=torch.long).reshape(-1)  # (T,)
        if ids.numel() < 2:
            raise ValueError(f"ids must hold at least 2 tokens, got {ids.numel()}")
        if kv_chunk is None:
            hidden = self.hidden_states(ids, method=method, factor=factor)  # (T, d_model)
        else:
            kv_chunk = check_int("kv_chunk", kv_chunk, minimum=1)
            cache = KVCache(self.config.n_layers)
            parts = [
                self.hidden_states(ids[a : a + kv_chunk], method=method, factor=factor, cache=cache)
                for a in range(0, ids.numel(), kv_chunk)
            ]
            hidden = torch.cat(parts)  # (T, d_model)
        return self.head_losses(hidden[:-1], ids[1:], chunk=chunk)[0]  # (T-1,)

    def sliding_window_losses(
        self,
        ids,
        *,
        window: int,
        stride: int,
        start: int,
        chunk: int = 1024,
        method: str = "default",
        factor: float = 2.0,
        rope_seq_len: int | None = None,
    ) -> np.ndarray:
        """Scored with at most ``window`` tokens of context: losses (nats) of tokens start+1 .. T-1.

        Tokens are scored ``stride`` at a time; each block is run as a fresh sequence made of the ``window``
        tokens ending with it (positions 0 .. window-1). ``method``, ``factor``, ``rope_seq_len``: the rotation
        (default: plain RoPE), as in :meth:`hidden_states`. Float64 (T-1-start,).
        """
        ids = torch.as_tensor(ids, dtype=torch.long).reshape(-1)  # (T,)
        window = check_int("window", window, minimum=2)
        stride = check_int("stride", stride, minimum=1)
        if stride >= window:
            raise ValueError(f"stride must be < window = {window}, got {stride}")
        start = check_int("start", start, minimum=window - 1)
        out = []
        for a in range(start + 1, ids.numel(), stride):  # score targets a .. a+stride-1
            b = min(a + stride, ids.numel())
            seg = ids[b - window : b]  # (window,)
            hidden = self.hidden_states(
                seg[:-1], method=method, factor=factor, rope_seq_len=rope_seq_len
            )  # (window-1, d_model)
            n = b - a
            out.append(self.head_losses(hidden[-n:], seg[-n:], chunk=chunk)[0])  # (n,)
        return np.concatenate(out)  # (T-1-start,)

    @torch.inference_mode()
    def generate(self, ids, max_new_tokens: int, *, method: str = "default", factor: float = 2.0) -> list[int]:
        """Greedy decoding with a KV cache: the prompt in one call, then one token per call. Returns new ids."""
        max_new_tokens = check_int("max_new_tokens", max_new_tokens, minimum=1)
        cache = KVCache(self.config.n_layers)
        hidden = self.hidden_states(ids, method=method, factor=factor, cache=cache)  # (T, d_model)
        new = []
        for _ in range(max_new_tokens):
            nxt = int((hidden[-1] @ self.head.T).argmax())
            new.append(nxt)
            if len(new) == max_new_tokens:
                break
            hidden = self.hidden_states([nxt], method=method, factor=factor, cache=cache)  # (1, d_model)
        return new
