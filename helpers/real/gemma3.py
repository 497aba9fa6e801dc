"""The course's own forward pass for Gemma 3 (270M): per-layer-type RoPE, sliding-window layers, q/k norms.

One block ℓ, for a sequence x of shape (T, d) (Gemma 3 technical report, arXiv 2503.19786 §2; HF 5.24
``models/gemma3/modeling_gemma3.py``):

    h  = x + n_post_attn( W_o · Attn_ℓ( RoPE_ℓ(n_q(W_q·n_in(x))), RoPE_ℓ(n_k(W_k·n_in(x))), W_v·n_in(x) ) )
    x' = h + n_post_ffw( W_down · (gelu_tanh(W_gate·n_pre_ffw(h)) ⊙ W_up·n_pre_ffw(h)) )

* RMSNorm with a (1 + w) gain: n(x) = x / sqrt(mean(x²) + ε) · (1 + w). Four per block (before and after attention,
  before and after the MLP), plus n_q and n_k over each head's D = 256 dimensions of q and k *before* RoPE, and the
  final norm. The GGUF stores 1 + w (llama.cpp adds the 1); HF's loader subtracts it; here w = stored − 1.
* Attention logits q·k / sqrt(query_pre_attn_scalar) (= D = 256), no soft-capping (Gemma 2 had it; Gemma 3 has
  none). 4 query heads share 1 key/value head.
* Layer types: five ``sliding_attention`` layers then one ``full_attention`` layer, three times. A sliding layer's
  query at position t sees keys t − W + 1 .. t (W = ``sliding_window`` = 512) and rotates with base 1e4; a full
  layer sees every earlier key and rotates with base 1e6. The frequencies of each layer type come from
  :func:`helpers.model_configs.rope_by_layer_type` (hence :mod:`helpers.scaling`), so a per-layer-type
  ``rope_parameters`` dict (e.g. linear or YaRN on the full layers only) changes them exactly as it would in HF.
* The token embedding is multiplied by sqrt(d) (= 25.3 for d = 640) on the way in and is also the output head
  (tied); the 262,144-way head and the loss are computed ``chunk`` rows at a time.

**Memory.** A sliding layer runs in query blocks of W rows: block [a, a + W) attends to keys [a − W + 1, a + W),
so its scores are (H, W, 2W − 1) whatever T is: memory linear in T (and in W), never a T×T mask. Full layers use
PyTorch's fused causal attention (4-D inputs: the CPU flash kernel, memory O(T)).

RoPE layout: llama.cpp's converter does not permute Gemma's W_q/W_k rows (it does only for Llama), so the GGUF
is in HF's *half-split* layout and is rotated as such. Used by the chapter on 2025–26 position designs.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping

import numpy as np
import torch
import torch.nn.functional as F

from helpers._checks import check_int
from helpers.model_configs import RopeSchedule, rope_by_layer_type
from helpers.real.gguf_load import Gemma3Config
from helpers.real.model import chunked_head_losses
from helpers.rope import apply_rope, rope_cos_sin

__all__ = ["SCALED_LAYERS", "RealGemma3", "gemma3_rope_schedule", "scaled_rope_parameters", "sliding_window_attention"]

#: The per-block tensors (GGUF names after ``blk.N.``) and what HF calls them.
BLOCK_TENSORS = {
    "attn_norm.weight": "input_layernorm",
    "attn_q.weight": "self_attn.q_proj",
    "attn_k.weight": "self_attn.k_proj",
    "attn_v.weight": "self_attn.v_proj",
    "attn_q_norm.weight": "self_attn.q_norm",
    "attn_k_norm.weight": "self_attn.k_norm",
    "attn_output.weight": "self_attn.o_proj",
    "post_attention_norm.weight": "post_attention_layernorm",
    "ffn_norm.weight": "pre_feedforward_layernorm",
    "ffn_gate.weight": "mlp.gate_proj",
    "ffn_up.weight": "mlp.up_proj",
    "ffn_down.weight": "mlp.down_proj",
    "post_ffw_norm.weight": "post_feedforward_layernorm",
}


def gemma3_rope_schedule(config: Gemma3Config, rope_parameters: Mapping | None = None) -> RopeSchedule:
    """Each layer type's (inv_freq, attention factor) and the layer schedule of ``config``.

    ``rope_parameters``: HF-style per-layer-type dict replacing the file's (``{"sliding_attention": {...},
    "full_attention": {...}}``; a type left out keeps the file's), e.g. ``{"full_attention": {"rope_type": "linear",
    "factor": 8.0}}`` scales the global layers only, as Gemma 3's larger models ship it. Each entry's
    ``rope_theta`` defaults to the file's base for that type. Shapes: ``by_type[t].inv_freq`` (D/2,) float64.
    Source: :func:`helpers.model_configs.rope_by_layer_type` (equal to HF's ``Gemma3RotaryEmbedding``).
    """
    hf = config.hf_config()
    params = {t: dict(p) for t, p in hf["rope_parameters"].items()}
    if rope_parameters is not None:
        if not isinstance(rope_parameters, Mapping):
            raise TypeError(f"rope_parameters must be a dict keyed by layer type, got {rope_parameters!r}")
        unknown = sorted(set(rope_parameters) - set(params))
        if unknown:
            raise ValueError(f"rope_parameters keys must be layer types {sorted(params)}, got {unknown}")
        for t, p in rope_parameters.items():
            if not isinstance(p, Mapping):
                raise TypeError(f"rope_parameters[{t!r}] must be a dict (HF rope_parameters), got {p!r}")
            params[t] = {"rope_theta": params[t]["rope_theta"], **p}
    return rope_by_layer_type(dict(hf, rope_parameters=params))


#: Which layers a scaled ``rope_parameters`` dict changes: the global (full_attention) layers only, as Gemma 3's
#: larger models ship it (linear, factor 8), or every layer.
SCALED_LAYERS = ("global", "all")


def scaled_rope_parameters(config: Gemma3Config, method: str, factor: float, layers: str = "global") -> dict:
    """The per-layer-type ``rope_parameters`` (HF 5.24 format) that scale ``layers`` of ``config`` by ``method``.

    ``method``: a :data:`helpers.scaling.ROPE_SCALING` name whose frequencies do not depend on the current length
    (``default``, ``linear``, ``yarn``, ...); its dict is :func:`helpers.scaling.scaling_config` ``(method, factor,
    L, hf=True)`` with L = ``config.max_position_embeddings`` (32,768 for Gemma 3 270M), plus each layer type's
    own ``rope_theta`` (sliding 1e4, full 1e6). ``layers``: ``"global"`` scales the full_attention layers only
    (the sliding layers keep plain RoPE), ``"all"`` scales both types. ``default`` gives the file's own dict.
    E.g. linear, s = 2, global: ``{"sliding_attention": {"rope_type": "default", "rope_theta": 1e4},
    "full_attention": {"rope_type": "linear", "factor": 2.0, "rope_theta": 1e6}}``.
    """
    from helpers._checks import check_choice
    from helpers.scaling import ROPE_SCALING, scaling_config

    method = check_choice("method", method, tuple(ROPE_SCALING))
    if ROPE_SCALING[method].reads_length:
        raise ValueError(
            f"method {method!r} sets its frequencies from the current length; choose one that does not "
            f"(e.g. 'linear', 'yarn')"
        )
    layers = check_choice("layers", layers, SCALED_LAYERS)
    file = config.hf_config()["rope_parameters"]  # layer type -> {"rope_type": "default", "rope_theta": base}
    scaled = scaling_config(method, factor, config.max_position_embeddings, hf=True)
    out = {}
    for t, p in file.items():
        if method == "default" or (layers == "global" and t != "full_attention"):
            out[t] = dict(p)
        else:
            out[t] = {**scaled, "rope_theta": p["rope_theta"]}
    return out


class RealGemma3:
    """Inference-only Gemma 3 over dequantised GGUF weights (float32, CPU, no autograd).

    ``config``: from :func:`helpers.real.gguf_load.read_gemma3_config` (or ``load_weights("gemma3")``);
    ``weights``: GGUF names -> tensors, norms stored as 1 + w (as the GGUF has them);
    ``rope_parameters``: optional per-layer-type override (see :func:`gemma3_rope_schedule`).
    """

    def __init__(self, config: Gemma3Config, weights: dict[str, torch.Tensor], *, rope_parameters=None):
        if not isinstance(config, Gemma3Config):
            raise TypeError(f"config must be a Gemma3Config, got {type(config).__name__}")
        c = self.config = config
        missing = [k for k in ("token_embd.weight", "output_norm.weight") if k not in weights]
        missing += [f"blk.{i}.{n}" for i in range(c.num_hidden_layers) for n in BLOCK_TENSORS]
        missing = [k for k in missing if k not in weights]
        if missing:
            raise ValueError(f"weights lacks {len(missing)} Gemma 3 tensors, e.g. {missing[:3]}")
        if not c.tied_embeddings and "output.weight" not in weights:
            raise ValueError("config.tied_embeddings is False but weights has no 'output.weight' (the untied head)")
        self.embed = weights["token_embd.weight"]  # (V, d)
        self.head = self.embed if c.tied_embeddings else weights["output.weight"]  # (V, d)
        self.embed_scale = torch.tensor(c.hidden_size**0.5, dtype=torch.float32)  # sqrt(d), as HF rounds it
        self.norm = weights["output_norm.weight"] - 1.0  # (d,): w of n(x)·(1 + w)
        self.layers = []
        for i in range(c.num_hidden_layers):
            w = {n: weights[f"blk.{i}.{n}"] for n in BLOCK_TENSORS}
            self.layers.append(
                {
                    "type": c.layer_types[i],
                    "n_in": w["attn_norm.weight"] - 1.0,  # (d,)
                    "qkv": torch.cat([w["attn_q.weight"], w["attn_k.weight"], w["attn_v.weight"]]),  # ((H+2Hkv)·D, d)
                    "n_q": w["attn_q_norm.weight"] - 1.0,  # (D,)
                    "n_k": w["attn_k_norm.weight"] - 1.0,  # (D,)
                    "o": w["attn_output.weight"],  # (d, H·D)
                    "n_post_attn": w["post_attention_norm.weight"] - 1.0,  # (d,)
                    "n_pre_ffw": w["ffn_norm.weight"] - 1.0,  # (d,)
                    "gate_up": torch.cat([w["ffn_gate.weight"], w["ffn_up.weight"]]),  # (2F, d)
                    "down": w["ffn_down.weight"],  # (d, F)
                    "n_post_ffw": w["post_ffw_norm.weight"] - 1.0,  # (d,)
                }
            )
        self.rope_parameters = None if rope_parameters is None else dict(rope_parameters)
        self.schedule = gemma3_rope_schedule(c, rope_parameters)

    def with_rope_parameters(self, rope_parameters) -> RealGemma3:
        """The same model (weights shared, nothing copied) rotating with another per-layer-type ``rope_parameters``
        (see :func:`gemma3_rope_schedule`; None: the file's)."""
        other = copy.copy(self)
        other.rope_parameters = None if rope_parameters is None else dict(rope_parameters)
        other.schedule = gemma3_rope_schedule(self.config, rope_parameters)
        return other

    # ------------------------------------------------------------------ pieces
    def rms_norm(self, x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
        """n(x) = x / sqrt(mean(x²) + ε) · (1 + w) over the last axis (Gemma's RMSNorm). x: (..., n), w: (n,)."""
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.config.rms_norm_eps) * (1.0 + w)  # (..., n)

    def cos_sin(self, positions: np.ndarray) -> dict[str, tuple[torch.Tensor, torch.Tensor]]:
        """Per layer type: cos and sin (T, D/2), times that type's attention factor."""
        out = {}
        for t, rope in self.schedule.by_type.items():
            # θ = 0 (proportional RoPE's unrotated pairs) is allowed: cos = a, sin = 0
            out[t] = rope_cos_sin(positions, rope.inv_freq, attention_factor=rope.attention_factor)  # (T, D/2) each
        return out

    def _attend(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, layer_type: str) -> torch.Tensor:
        """Causal attention of q (H, T, D) over k, v (Hkv, T, D); sliding layers see distances < W. -> (H, T, D)."""
        H, T, D = q.shape
        scale = self.config.query_pre_attn_scalar**-0.5
        kx = k.repeat_interleave(H // k.shape[0], dim=0)[None]  # (1, H, T, D)
        vx = v.repeat_interleave(H // v.shape[0], dim=0)[None]  # (1, H, T, D)
        W = self.config.sliding_window
        if layer_type != "sliding_attention" or T <= W:  # (a sliding layer with T <= W sees every earlier key)
            return F.scaled_dot_product_attention(q[None], kx, vx, is_causal=True, scale=scale)[0]  # (H, T, D)
        return sliding_window_attention(q, kx[0], vx[0], W, scale=scale)  # (H, T, D)

    # ------------------------------------------------------------------ forward pass
    @torch.inference_mode()
    def hidden_states(self, ids, *, capture: dict | None = None) -> torch.Tensor:
        """Final normalised hidden states (T, d) of token ids (T,), one sequence starting at position 0.

        ``capture``: a dict with key ``"layers"`` (a set of layer indices); for those layers the normalised,
        rotated q (H, T, D) and k (Hkv, T, D) and v (Hkv, T, D) are stored in it, and the attention output
        (H, T, D) (for attention-by-distance measurements: :mod:`helpers.real.gemma3_attention`).
        """
        c = self.config
        ids = self._check_ids(ids)  # (T,)
        T = ids.numel()
        cos_sin = self.cos_sin(np.arange(T))  # type -> (T, D/2) each
        x = self.embed[ids] * self.embed_scale  # (T, d)
        H, Hkv, D = c.num_attention_heads, c.num_key_value_heads, c.head_dim
        for i, L in enumerate(self.layers):
            h = self.rms_norm(x, L["n_in"])  # (T, d)
            q, k, v = (h @ L["qkv"].T).split([H * D, Hkv * D, Hkv * D], dim=-1)  # (T, H·D), (T, Hkv·D) ×2
            q = self.rms_norm(q.view(T, H, D), L["n_q"]).transpose(0, 1)  # (H, T, D)
            k = self.rms_norm(k.view(T, Hkv, D), L["n_k"]).transpose(0, 1)  # (Hkv, T, D)
            v = v.view(T, Hkv, D).transpose(0, 1)  # (Hkv, T, D)
            cos, sin = cos_sin[L["type"]]
            if self.schedule.rotates[i]:
                q = apply_rope(q, cos, sin, layout="half_split")  # (H, T, D)
                k = apply_rope(k, cos, sin, layout="half_split")  # (Hkv, T, D)
            att = self._attend(q, k, v, L["type"])  # (H, T, D)
            if capture is not None and i in capture.get("layers", ()):
                capture[i] = {"q_rot": q.clone(), "k_rot": k.clone(), "v": v.clone(), "out": att.clone()}
            x = x + self.rms_norm(att.transpose(0, 1).reshape(T, H * D) @ L["o"].T, L["n_post_attn"])  # (T, d)
            h = self.rms_norm(x, L["n_pre_ffw"])  # (T, d)
            gate, up = (h @ L["gate_up"].T).chunk(2, dim=-1)  # (T, F) each
            x = x + self.rms_norm((F.gelu(gate, approximate="tanh") * up) @ L["down"].T, L["n_post_ffw"])  # (T, d)
        return self.rms_norm(x, self.norm)  # (T, d)

    def _check_ids(self, ids) -> torch.Tensor:
        ids = torch.as_tensor(ids).reshape(-1)  # (T,)
        if ids.numel() == 0:
            raise ValueError("ids must hold at least 1 token, got 0")
        if ids.dtype.is_floating_point or ids.dtype == torch.bool:
            raise TypeError(f"ids must be integer token ids, got dtype {ids.dtype}")
        V = self.config.vocab_size
        if int(ids.min()) < 0 or int(ids.max()) >= V:
            raise ValueError(f"ids must be token ids in [0, {V}), got values in [{int(ids.min())}, {int(ids.max())}]")
        return ids.long()

    @torch.inference_mode()
    def logits(self, ids, **kwargs) -> torch.Tensor:
        """Full logits (T, V): for short inputs only (V = 262,144 floats, 1 MB, per token); see :meth:`token_losses`."""
        return self.hidden_states(ids, **kwargs) @ self.head.T  # (T, V)

    @torch.inference_mode()
    def head_losses(self, hidden: torch.Tensor, targets, *, chunk: int = 256) -> tuple[np.ndarray, np.ndarray]:
        """Cross-entropy (nats) and argmax-correctness of ``targets`` (N,) from ``hidden`` (N, d), ``chunk`` rows of
        the 262,144-way head at a time (256 rows: a 268 MB logits block). Returns float64 (N,) and bool (N,)."""
        return chunked_head_losses(hidden, self.head, targets, chunk=chunk)

    def token_losses(self, ids, *, chunk: int = 256) -> np.ndarray:
        """Loss (nats) of predicting token t+1 from tokens 0..t, for t = 0..T-2: float64 (T-1,)."""
        ids = self._check_ids(ids)  # (T,)
        if ids.numel() < 2:
            raise ValueError(f"ids must hold at least 2 tokens, got {ids.numel()}")
        hidden = self.hidden_states(ids)  # (T, d)
        return self.head_losses(hidden[:-1], ids[1:], chunk=chunk)[0]  # (T-1,)

    @torch.inference_mode()
    def generate(self, ids, max_new_tokens: int) -> list[int]:
        """Greedy decoding (no cache: each step reruns the sequence; for short demonstrations). Returns new ids."""
        max_new_tokens = check_int("max_new_tokens", max_new_tokens, minimum=1)
        seq = self._check_ids(ids).tolist()
        new = []
        for _ in range(max_new_tokens):
            nxt = int((self.hidden_states(seq)[-1] @ self.head.T).argmax())
            new.append(nxt)
            seq.append(nxt)
        return new


def sliding_window_attention(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, window: int, *, scale: float | None = None
) -> torch.Tensor:
    """Causal attention in which query t sees keys t − W + 1 .. t (distance < W), computed in blocks of W queries.

    softmax_j(q_t·k_j·scale) over max(0, t − W + 1) ≤ j ≤ t (HF ``sliding_window_overlay``: kv > q − W). Block
    [a, a + W) of queries needs keys [a − W + 1, a + W): each block's scores are (H, W, 2W − 1), so memory grows
    linearly with T instead of as T². ``q``: (H, T, D); ``k``, ``v``: (H, T, D) (K/V heads already repeated);
    ``scale``: default 1/sqrt(D). Returns (H, T, D).
    """
    window = check_int("window", window, minimum=1)
    if q.ndim != 3 or k.shape != q.shape or v.shape != q.shape:
        raise ValueError(
            f"q, k, v must all have shape (H, T, D), got {tuple(q.shape)}, {tuple(k.shape)}, {tuple(v.shape)}"
        )
    H, T, D = q.shape
    scale = 1.0 / math.sqrt(D) if scale is None else scale
    out = torch.empty_like(q)  # (H, T, D)
    rel = torch.arange(window)[:, None] - torch.arange(-(window - 1), window)[None, :]  # (W, 2W−1): q − k offsets
    for a in range(0, T, window):
        b = min(a + window, T)
        lo = max(0, a - window + 1)
        # query a + i sees key lo + j iff 0 <= (a + i) − (lo + j) < W
        dist = rel[: b - a, lo - (a - window + 1) : b - (a - window + 1)]  # (b−a, b−lo)
        mask = (dist >= 0) & (dist < window)  # (b−a, b−lo)
        out[:, a:b] = F.scaled_dot_product_attention(
            q[None, :, a:b], k[None, :, lo:b], v[None, :, lo:b], attn_mask=mask, scale=scale
        )[0]  # (H, b−a, D)
    return out
