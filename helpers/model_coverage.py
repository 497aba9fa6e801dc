"""The config reader against HF transformers 5.24, model type by model type: read right, refused, or wrong.

For every model type of the installed ``transformers`` whose (text) config carries position fields, the default
config is built with HF's own config class, serialized as a ``config.json`` would be (``to_dict()``), read by
:func:`helpers.model_configs.read_model_config`, and compared with HF's own code:

* frequencies and attention factor: HF's rotary class of that model (``*RotaryEmbedding``, per layer type when it
  keeps one buffer per type), to rtol 1e-6 (HF computes in float32); unrotated pairs exactly 0;
* which layers rotate: the condition around the rotary call in HF's attention ``forward`` (found in the modeling
  file's syntax tree), evaluated on HF's attention module of every layer (built on the ``meta`` device); no call at
  all means no layer rotates;
* temperatures: HF's ``get_llama_4_attn_scale`` (Ministral 3, Mistral 4) and Llama 4's attention module at
  several positions; any other model whose modeling file scales queries by position is refused.

``coverage()`` returns ``{model type: (status, reason)}``, status "right", "refused" or "wrong";
``python -m helpers.model_coverage [--all]`` prints it. Needs ``transformers`` and ``torch``; imported by no maths
module. Used by ``tests/test_model_configs_hf.py`` and to generate :mod:`helpers._model_types_all`.
"""

from __future__ import annotations

import ast
import functools
import importlib
import inspect
import re
import warnings
from collections import Counter
from pathlib import Path

import numpy as np

__all__ = [
    "audit_rotary_calls",
    "check_config",
    "check_model_type",
    "coverage",
    "coverage_table",
    "hf_position_model_types",
]

#: Conditions around a rotary call that do not decide whether a layer rotates (pair layout, cross-attention,
#: a layer that reuses another layer's rotated keys).
_HARMLESS_CONDITIONS = re.compile(r"rope_interleave|is_cross_attention|is_kv_shared_layer|cache is not None")
_ROTARY_CALL = re.compile(r"apply_rotary|apply_rope|apply_.*rotary")
_TEMPERATURE_CODE = re.compile(r"get_llama_4_attn_scale|attn_temperature_tuning|softmax_scaling|log_scaling|"
                               r"log1p\(torch\.floor")  # fmt: skip
_SPECIAL_TOPLEVEL = ("jamba", "nemotron_h", "kimi_linear")


def _quiet():
    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()
    warnings.filterwarnings("ignore")


@functools.cache
def _modeling_source(package: str) -> tuple[str, str] | None:
    """(path, text) of ``transformers/models/<package>/modeling_<package>.py``, or None."""
    import transformers

    path = Path(transformers.__file__).parent / "models" / package / f"modeling_{package}.py"
    return (str(path), path.read_text()) if path.is_file() else None


@functools.cache
def audit_rotary_calls(package: str) -> tuple[tuple[str, int, tuple[str, ...]], ...]:
    """Every rotary call in an attention class's ``forward`` of HF's modeling file: (class, line, conditions)."""
    src = _modeling_source(package)
    if src is None:
        return ()
    tree = ast.parse(src[1])
    found = []

    def walk(node, stack):
        if isinstance(node, ast.Call):
            f = node.func
            name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
            if _ROTARY_CALL.search(name):
                cls = next((n for n in reversed(stack) if isinstance(n, ast.ClassDef)), None)
                fn = next((n for n in reversed(stack) if isinstance(n, ast.FunctionDef)), None)
                if cls is not None and "attention" in cls.name.lower() and fn is not None and fn.name == "forward":
                    conds = tuple(ast.unparse(n.test) for n in stack[stack.index(fn) :] if isinstance(n, ast.If))
                    found.append((cls.name, node.lineno, conds))
        for child in ast.iter_child_nodes(node):
            walk(child, [*stack, node])

    walk(tree, [])
    return tuple(found)


def _attention_forward_calls(package: str, name: str) -> list[tuple[str, tuple[str, ...]]]:
    """Every call ``self.<name>(…)`` in an attention class's ``forward``: (class, the ``if`` tests around it)."""
    src = _modeling_source(package)
    found = []
    for cls in ast.walk(ast.parse(src[1])) if src else ():
        if not (isinstance(cls, ast.ClassDef) and cls.name.endswith("Attention")):
            continue
        for fn in cls.body:
            if not (isinstance(fn, ast.FunctionDef) and fn.name == "forward"):
                continue

            def walk(node, tests, owner=cls.name):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == name:
                    found.append((owner, tuple(tests)))
                for child in ast.iter_child_nodes(node):
                    walk(child, [*tests, ast.unparse(node.test)] if isinstance(node, (ast.If, ast.IfExp)) else tests)

            walk(fn, [])
    return found


def _package(config) -> str:
    return type(config).__module__.split(".")[-2]


def _has_position_fields(mt: str, text_config) -> bool:
    d = text_config.to_dict()
    return (
        d.get("rope_parameters") is not None or any("rope" in k or "rotary" in k for k in d) or mt in _SPECIAL_TOPLEVEL
    )


@functools.cache
def hf_position_model_types() -> tuple[str, ...]:
    """Every model type of the installed transformers whose default (text) config carries position fields."""
    from transformers import CONFIG_MAPPING

    _quiet()
    out = []
    for mt in sorted(CONFIG_MAPPING.keys()):
        try:
            config = CONFIG_MAPPING[mt]()
            text = config.get_text_config(decoder=True)
        except Exception:  # noqa: BLE001 - a config HF cannot build with its defaults has nothing to compare
            continue
        if _has_position_fields(mt, text):
            out.append(mt)
    return tuple(out)


def _rotary_instance(text_config):
    """HF's rotary embedding of this (text) config: the class named after the config, else another text one."""
    package = _package(text_config)
    try:
        mod = importlib.import_module(f"transformers.models.{package}.modeling_{package}")
    except Exception:  # noqa: BLE001
        return None, "no HF modeling module"
    classes = {k: v for k, v in vars(mod).items() if k.endswith("RotaryEmbedding") and inspect.isclass(v)}
    prefix = type(text_config).__name__.removesuffix("Config")
    order = [prefix + "RotaryEmbedding", prefix.removesuffix("Text") + "RotaryEmbedding",
             prefix.removesuffix("Text") + "TextRotaryEmbedding"]  # fmt: skip
    order += sorted(k for k in classes if k not in order and not re.search("Vision|Audio|Speech|Encoder", k))
    for name in order:
        if name not in classes:
            continue
        try:
            return classes[name](config=text_config), name
        except Exception:  # noqa: BLE001, S112 - try the next candidate
            continue
    return None, "no HF rotary class builds from this config"


def _hf_frequencies(rotary, layer_type: str) -> tuple[np.ndarray, float] | None:
    if hasattr(rotary, f"{layer_type}_inv_freq"):
        inv = getattr(rotary, f"{layer_type}_inv_freq")
        return inv.double().numpy(), float(getattr(rotary, f"{layer_type}_attention_scaling"))
    if hasattr(rotary, "inv_freq") and not any(k.endswith("_inv_freq") and k != "original_inv_freq"
                                                for k in dict(rotary.named_buffers())):  # fmt: skip
        return rotary.inv_freq.double().numpy(), float(getattr(rotary, "attention_scaling", 1.0))
    return None


def _compare_freqs(ours: np.ndarray, hf: np.ndarray, rope_type: str | None, mla: bool) -> str | None:
    """None if equal; else what differs."""
    if rope_type == "axial":
        half = len(ours) // 2
        if len(hf) != half or not (np.allclose(ours[:half], hf, rtol=1e-6) and np.allclose(ours[half:], hf, rtol=1e-6)):
            return f"axial frequencies differ (ours {len(ours)}, HF {len(hf)} entries)"
        return None
    if len(hf) > len(ours):
        return f"HF has {len(hf)} frequencies, the reader {len(ours)}"
    part, rest = (
        (ours[len(ours) - len(hf) :], ours[: len(ours) - len(hf)]) if mla else (ours[: len(hf)], ours[len(hf) :])
    )
    if np.any(rest != 0):
        return "pairs HF does not rotate are not exactly 0"
    zero = hf == 0
    if np.any(part[zero] != 0):
        return "pairs with θ = 0 in HF are not exactly 0"
    if not np.allclose(part, hf, rtol=1e-6, atol=0):
        i = int(np.argmax(np.abs(part - hf) / np.maximum(np.abs(hf), 1e-300)))
        return f"frequencies differ (pair {i}: {part[i]:.6g} vs HF {hf[i]:.6g})"
    return None


def _hf_rotates(text_config, package: str) -> tuple[list[bool] | None, str]:
    """Which layers HF's attention rotates: from the conditions around its rotary calls, evaluated on its modules."""
    import torch

    from helpers.model_configs import ATTENTION_LAYER_TYPES

    calls = audit_rotary_calls(package)
    n = int(text_config.num_hidden_layers)
    types = list(getattr(text_config, "layer_types", None) or ["full_attention"] * n)
    attends = [t in ATTENTION_LAYER_TYPES for t in types]
    if not calls:
        return [False] * n, "no rotary call in any attention forward"
    conds = {c for _, _, cs in calls for c in cs if not _HARMLESS_CONDITIONS.search(c)}
    if not conds:
        return attends, "rotary call unconditional"
    if conds == {"position_embeddings is not None"}:
        if package == "granitemoehybrid":  # rotary_emb built iff position_embedding_type == "rope" (l.1057)
            return [a and text_config.position_embedding_type == "rope" for a in attends], "position_embedding_type"
        if package in ("granite_swa", "granitemoe_swa"):  # theta == 0 => NoPE (GraniteSWAModel, l.392)
            thetas = list(text_config.layer_rope_theta)
            return [a and bool(t) for a, t in zip(attends, thetas, strict=True)], "layer_rope_theta"
        return None, "rotation decided by the decoder layer passing position_embeddings (not audited)"
    cls_name = calls[0][0]
    mod = importlib.import_module(f"transformers.models.{package}.modeling_{package}")
    cls = getattr(mod, cls_name)
    out = []
    with torch.device("meta"):
        for i in range(n):
            if not attends[i]:
                out.append(False)
                continue
            try:
                module = cls(text_config, i)
            except Exception as exc:  # noqa: BLE001
                return None, f"HF's {cls_name} does not build on the meta device ({type(exc).__name__})"
            try:
                out.append(all(bool(eval(c, {}, {"self": module})) for c in conds))  # noqa: S307 - HF's own code
            except Exception:  # noqa: BLE001
                return None, f"condition {sorted(conds)} of {cls_name} not evaluable on the module"
    return out, f"{cls_name}: {' and '.join(sorted(conds))}"


def _hf_rope_labels(text_config, package: str) -> dict[int, str]:
    """{layer: the rope label HF's attention module of that layer uses} when its attention picks its cos/sin by a
    ``rope_layer_type`` attribute (DeepSeek-V4: "main" / "compress"), else {} (the layer type is the key)."""
    import torch

    calls = audit_rotary_calls(package)
    if not calls:
        return {}
    mod = importlib.import_module(f"transformers.models.{package}.modeling_{package}")
    cls = getattr(mod, calls[0][0])
    if "rope_layer_type" not in inspect.getsource(cls):
        return {}
    types = list(text_config.layer_types)
    first = {t: types.index(t) for t in dict.fromkeys(types)}  # HF sets it from config.layer_types[layer_idx]
    with torch.device("meta"):
        label = {t: cls(text_config, i).rope_layer_type for t, i in first.items()}  # one module per layer type
    return {i: label[t] for i, t in enumerate(types)}


def _random_learned(text_config) -> dict[str, np.ndarray]:
    """Seeded stand-ins for a checkpoint's learned tensors (Mistral Large 4): α ~ N(0, 0.3²) per rotary pair,
    a_h ~ U(0, 0.2), b_h ~ U(0.8, 1.2) per layer and head; the same values go into HF's modules."""
    rng = np.random.default_rng(0)
    n, h = int(text_config.num_hidden_layers), int(text_config.num_attention_heads)
    return {"rope_alpha": rng.normal(0.0, 0.3, int(text_config.qk_rope_head_dim) // 2),
            "softmax_scale": rng.uniform(0.0, 0.2, (n, h)), "softmax_bias": rng.uniform(0.8, 1.2, (n, h))}  # fmt: skip


def _hf_forward_frequencies(rotary, alpha: np.ndarray) -> np.ndarray:
    """The frequencies HF's rotary forward uses with ``alpha`` loaded: the angles at position 1, captured as the
    argument of its ``cos`` (float32 in HF, so compared to rtol 1e-6)."""
    import torch
    from torch.overrides import TorchFunctionMode

    seen = []

    class Capture(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            if func in (torch.Tensor.cos, torch.cos):
                seen.append(args[0].detach().clone())
            return func(*args, **(kwargs or {}))

    with torch.no_grad():
        rotary.alpha.copy_(torch.as_tensor(alpha, dtype=rotary.alpha.dtype))
        with Capture():
            rotary(torch.ones(1, dtype=torch.float32), torch.ones(1, 1, dtype=torch.long))
    emb = seen[0][0, 0].double().numpy()  # (D_r,) = cat(θ·1, θ·1)
    return emb[: len(emb) // 2]  # (D_r/2,)


def _hf_learned_temperatures(package: str, learned: dict, positions) -> np.ndarray:
    """HF's per-head query factor of every layer at ``positions``: float64 (layers, H, T), from its
    ``*SoftmaxScaling`` module with the learned scale and bias loaded, applied to a query of ones."""
    import torch

    mod = importlib.import_module(f"transformers.models.{package}.modeling_{package}")
    cls = next(v for k, v in vars(mod).items() if k.endswith("SoftmaxScaling") and inspect.isclass(v))
    n, h = learned["softmax_scale"].shape
    pos = torch.as_tensor(np.asarray(positions), dtype=torch.long)[None]  # (1, T)
    out = []
    with torch.no_grad():
        for i in range(n):
            m = cls(h).double()
            m.scale.copy_(torch.as_tensor(learned["softmax_scale"][i]))
            m.bias.copy_(torch.as_tensor(learned["softmax_bias"][i]))
            q = torch.ones(1, h, pos.shape[1], 1, dtype=torch.float64)  # (1, H, T, 1)
            out.append(m(q, pos, head_dim_first=True)[0, :, :, 0].numpy())  # (H, T)
    return np.stack(out)  # (layers, H, T)


def _hf_temperature_check(mt: str, text_config, positions, ours, learned=None) -> str | None:
    """None if our temperatures equal HF's at ``positions`` on every layer; else what differs."""
    import torch

    package = _package(text_config)
    src = (_modeling_source(package) or ("", ""))[1]
    uses = bool(_TEMPERATURE_CODE.search(src))
    temps = np.stack([lay.temperature(positions) for lay in ours.layers])  # (layers, T)
    if not uses:
        return None if np.all(temps == 1.0) else "the reader gives a temperature HF's code does not have"
    if learned is not None:  # every attention forward scales its queries: its softmax_scaling call is unconditional
        calls = _attention_forward_calls(package, "softmax_scaling")
        if not calls or any(conds for _, conds in calls):
            return f"HF's softmax_scaling calls are conditional or absent ({calls}): not read"
        hf = _hf_learned_temperatures(package, learned, positions)  # (layers, H, T)
        return None if np.allclose(temps, hf, rtol=1e-6, atol=0) else "learned per-head temperature differs"
    mod = importlib.import_module(f"transformers.models.{package}.modeling_{package}")
    if hasattr(mod, "get_llama_4_attn_scale"):
        rp = text_config.rope_parameters
        pos = torch.tensor(positions, dtype=torch.float64)[None]  # (1, T)
        hf = mod.get_llama_4_attn_scale(pos, rp.get("llama_4_scaling_beta"), rp.get("original_max_position_embeddings"))
        hf = hf[0, 0, :, 0].numpy()  # (T,)
        return None if np.allclose(temps, hf[None], rtol=1e-12) else "llama_4_scaling_beta temperature differs"
    if package == "llama4":
        hf = _llama4_hf_scales(text_config, positions)  # (T,)
        for lay, t in zip(ours.layers, temps, strict=True):
            want = hf if (text_config.attn_temperature_tuning and not lay.rotates) else np.ones_like(hf)
            if not np.allclose(t, want, rtol=1e-6):
                return f"layer {lay.layer}: Llama 4 temperature differs"
        return None
    return "HF's modeling file scales queries by position in a way the reader does not read"


def _llama4_hf_scales(text_config, positions) -> np.ndarray:
    """The factor HF's Llama4TextAttention multiplies a NoPE layer's queries by (captured at the attention call)."""
    import copy

    import torch
    from transformers.models.llama4 import modeling_llama4 as m

    cfg = copy.deepcopy(text_config)
    cfg.hidden_size, cfg.head_dim, cfg.num_attention_heads, cfg.num_key_value_heads = 8, 8, 1, 1
    cfg._attn_implementation = "eager"
    nope = [i for i, r in enumerate(cfg.no_rope_layers) if not r]
    if not nope:
        return np.ones(len(positions))
    attn = m.Llama4TextAttention(cfg, layer_idx=nope[0]).double()
    with torch.no_grad():
        attn.q_proj.weight.copy_(torch.eye(8))
    seen = {}

    class Cache:
        def __init__(self, p):
            self.p = p

        def get_seq_length(self, layer_idx):
            return self.p

        def update(self, key, value, layer_idx, **kw):
            return key, value

    def capture(module, query, key, value, mask, **kw):
        seen["q"] = query
        return value.transpose(1, 2), None

    original = m.eager_attention_forward
    m.eager_attention_forward = capture
    try:
        out = []
        with torch.no_grad():
            for p in positions:
                attn(torch.ones(1, 1, 8, dtype=torch.float64), None, None, cache=Cache(int(p)))
                out.append(float(seen.pop("q")[0, 0, 0, 0]))
    finally:
        m.eager_attention_forward = original
    return np.array(out)


POSITIONS = np.array([0, 1, 4095, 8191, 8192, 16383, 16384, 100_000, 1_000_000])


def check_model_type(mt: str) -> tuple[str, str]:
    """("right" | "refused" | "wrong", reason) for one HF model type's default config."""
    from transformers import CONFIG_MAPPING

    _quiet()
    config = CONFIG_MAPPING[mt]()
    return check_config(config.to_dict(), config.get_text_config(decoder=True))


def check_config(config: dict, text) -> tuple[str, str]:
    """("right" | "refused" | "wrong", reason): the reader on ``config`` (a config.json dict) against HF's code
    built from ``text`` (HF's config object of the same model, its text part)."""
    from helpers.model_configs import LEARNED_TENSORS, ConfigError, read_model_config

    mt = text.model_type
    learned = _random_learned(text) if mt in LEARNED_TENSORS else None
    try:
        ours = read_model_config(config, learned)
    except ConfigError as exc:
        return "refused", str(exc)
    package = _package(text)
    rotates, how = _hf_rotates(text, package)
    if rotates is None:
        return "wrong", f"read, but HF's rotation rule could not be checked: {how}"
    got = [lay.rotates for lay in ours.layers]
    if got != rotates:
        diff = [i for i, (a, b) in enumerate(zip(got, rotates, strict=False)) if a != b][:5]
        return "wrong", f"which layers rotate differs from HF ({how}) at layers {diff}"
    if any(rotates):
        rotary, name = _rotary_instance(text)
        if rotary is None:
            return "wrong", f"read, but {name}"
        mla = bool(getattr(text, "qk_rope_head_dim", None))
        labels = _hf_rope_labels(text, package)
        for lay in ours.layers:
            if not lay.rotates:
                continue
            hf = _hf_frequencies(rotary, labels.get(lay.layer, lay.layer_type))
            if learned is not None:  # HF's own forward with the learned α loaded
                hf = (_hf_forward_frequencies(rotary, learned["rope_alpha"]), hf[1])
            if hf is None:
                return "wrong", f"{name} has no frequencies for layer type {lay.layer_type!r}"
            if package in ("granite_swa", "granitemoe_swa"):  # one rotary per base (GraniteSWAModel l.392)
                d = 2 * len(hf[0])
                hf = (1.0 / (lay.base ** (np.arange(0, d, 2, dtype=np.float64) / d)), hf[1])
            problem = _compare_freqs(lay.inv_freq, hf[0], lay.rope_type, mla)
            if problem:
                return "wrong", f"layer {lay.layer} ({lay.layer_type}): {problem} ({name})"
            if not np.isclose(lay.attention_factor, hf[1], rtol=1e-6):
                return "wrong", f"attention factor {lay.attention_factor} vs HF {hf[1]} ({name})"
    problem = _hf_temperature_check(mt, text, POSITIONS, ours, learned)
    if problem:
        return "wrong", problem
    return "right", how


@functools.cache
def coverage() -> dict[str, tuple[str, str]]:
    """{model type: (status, reason)} for every HF 5.24 model type with position fields (cached per process)."""
    out = {}
    for mt in hf_position_model_types():
        try:
            out[mt] = check_model_type(mt)
        except Exception as exc:  # noqa: BLE001 - a crash of the check is reported, not hidden
            out[mt] = ("wrong", f"the check crashed: {type(exc).__name__}: {str(exc)[:120]}")
    return out


def _reason_kind(reason: str) -> str:
    """A short class of a refusal reason, for the summary."""
    m = re.search(r"model_type '[^']+': (\S+) = ", reason)
    if m:
        return f"key {m.group(1)} not read"
    if "not in the reader's table" in reason:
        return "model type not in the table"
    if "failed the check against HF" in reason:
        return "failed the check against HF 5.24 (helpers._model_types_all.EXCLUDED)"
    if "is refused:" in reason:
        return "refused on purpose (helpers.model_types.REFUSED)"
    return reason[:60]


def coverage_table(verbose: bool = False) -> str:
    """The coverage summary: counts per status, refusal reasons by kind, and (verbose) one line per model type."""
    cov = coverage()
    counts = Counter(status for status, _ in cov.values())
    lines = [f"HF transformers model types with position fields: {len(cov)}",
             f"  read right: {counts['right']}", f"  refused:    {counts['refused']}",
             f"  wrong:      {counts['wrong']}"]  # fmt: skip
    kinds = Counter(_reason_kind(r) for s, r in cov.values() if s == "refused")
    lines.append("refusals by reason:")
    lines += [f"  {n:4d}  {k}" for k, n in kinds.most_common()]
    wrong = {mt: r for mt, (s, r) in cov.items() if s == "wrong"}
    if wrong:
        lines.append("WRONG:")
        lines += [f"  {mt}: {r}" for mt, r in wrong.items()]
    if verbose:
        lines.append("per model type:")
        lines += [f"  {mt:36s} {s:8s} {r}" for mt, (s, r) in cov.items()]
    return "\n".join(lines)


def regenerate_all_rotate(path: str | None = None) -> tuple[int, int]:
    """Rewrite :mod:`helpers._model_types_all` from the audit: every text model type whose rotary calls are all
    unconditional (and that is not special or refused) is tried with rule "all"; those read right go in
    ALL_ROTATE, the others in EXCLUDED with the check's reason. Returns (len(ALL_ROTATE), len(EXCLUDED))."""
    import pprint

    from transformers import CONFIG_MAPPING

    import helpers._model_types_all as generated
    from helpers import model_configs, model_types

    _quiet()
    generated.EXCLUDED.clear()  # the reader consults it: start from the audit alone
    texts, packages = {}, {}
    for mt in hf_position_model_types():
        text = CONFIG_MAPPING[mt]().get_text_config(decoder=True)
        texts[mt], packages[mt] = text.model_type, _package(text)
        if text.model_type in model_types.REFUSED or text.model_type in model_types._SPECIAL:
            continue
        calls = audit_rotary_calls(_package(text))
        if calls and not {c for _, _, cs in calls for c in cs if not _HARMLESS_CONDITIONS.search(c)}:
            model_types.MODEL_TYPES[text.model_type] = ("all", None)
    mrope_all = {t for mt, t in texts.items() if "mrope_section" in (_modeling_source(packages[mt]) or ("", ""))[1]}
    model_configs.MROPE = tuple(sorted(mrope_all))  # the reader's gate, from HF's modeling files
    candidates = {t for t, rule in model_types.MODEL_TYPES.items() if rule == ("all", None)}
    right, excluded = set(), {}
    for mt, tmt in texts.items():
        if tmt not in candidates:
            continue
        try:
            status, why = check_model_type(mt)
        except Exception as exc:  # noqa: BLE001 - recorded as the reason
            status, why = "wrong", f"the check crashed: {type(exc).__name__}: {str(exc)[:120]}"
        if status == "right":
            right.add(tmt)
        elif mt != tmt and status == "refused" and why.startswith(f"model_type {mt!r} is not in the reader's table"):
            continue  # a composite (e.g. colpali) refused by its own name never reached tmt's part: says nothing of tmt
        else:
            excluded[tmt] = why
    right -= set(excluded)
    mrope = sorted(t for t in mrope_all if t in right or t in model_types._SPECIAL)
    target = Path(path) if path else Path(generated.__file__)
    target.write_text(
        '"""Generated by ``python -m helpers.model_coverage --regenerate`` from an audit of HF transformers 5.24 (see\n'
        "helpers.model_types); do not edit by hand.\n\n"
        "ALL_ROTATE: text model types whose every attention layer rotates (every rotary call in an attention forward is\n"
        "unconditional) and whose default config the reader reads as HF's code computes it.\n"
        "EXCLUDED: model types that passed the audit but whose default config failed the check (refused, with why).\n"
        '"""\n\n'
        f"ALL_ROTATE: tuple[str, ...] = {pprint.pformat(tuple(sorted(right)), width=110, compact=True)}\n\n"
        f"EXCLUDED: dict[str, str] = {pprint.pformat(dict(sorted(excluded.items())), width=110)}\n\n"
        "#: Model types whose HF modeling file reads mrope_section (M-RoPE): only they may carry it.\n"
        f"MROPE: tuple[str, ...] = {pprint.pformat(tuple(mrope), width=110, compact=True)}\n"
    )
    return len(right), len(excluded)


if __name__ == "__main__":
    import sys

    args = sys.argv[1:]
    if set(args) - {"--all"} and args != ["--regenerate"]:
        print("usage: python -m helpers.model_coverage [--all] | --regenerate", file=sys.stderr)
        sys.exit(2)
    if args == ["--regenerate"]:
        n_all, n_excluded = regenerate_all_rotate()
        print(f"ALL_ROTATE {n_all}, EXCLUDED {n_excluded}")
    else:
        print(coverage_table(verbose="--all" in args))
