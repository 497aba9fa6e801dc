"""The shipped checkpoints: the recipes that produce them, saving and loading, and their index.

Models (:data:`MODELS`; identifiers from :mod:`helpers.methods`), at two scales (:data:`SCALES`): at ``tiny``
(L = 64, the notebooks' scale) every family of group ``main`` of :data:`helpers.lab.positional.FAMILIES` pre-trained
from scratch (3000 steps of batch 32) and two fine-tunes of ``rope`` (``rope+linear_ft`` = PI,
``rope+yarn_ft``: 400 steps of batch 16 at 4·L = 256 with scale factor 4) at three learning rates
(:data:`FT_LRS`; ``rope+linear_ft_lr3e-4`` ...); at ``small`` (L = 256, where YaRN's bands exist) ``small/rope`` and
its fine-tunes, the same way. Each for the seeds :data:`SEEDS` (records) of which :data:`SHIPPED_SEEDS` ship as files. Pre-training seed k initialises the model from k and draws data from k;
the fine-tune of seed k starts from ``rope`` seed k and draws its data (length 256, batch 16) from k too.

The hybrid families (group ``hybrid``) have recipes at ``tiny`` with the same pre-training settings
(:data:`HYBRID_MODELS`), trained on request (``python -m helpers.lab train hybrid --out DIR``); their checkpoints do
not ship, so they are in neither the default grid nor :data:`MODELS`.

Files: ``checkpoints/<model>.seed<k>.pt`` holds the ``state_dict`` (float32; float16 for the learning-rate sweep's
extra runs, see :attr:`Recipe.storage`; tensors only; loaded with
``torch.load(weights_only=True)``) and ``<model>.seed<k>.json`` the config, the settings, the command that reproduces
it and the measured training time. The JSON is written last, so a run cut off mid-way leaves no JSON and is redone.

Training them: :mod:`helpers.lab.train_grid` (``python -m helpers.lab train`` trains every (model, seed) that is
missing, parents first, with a progress bar; finished runs are never redone, ``--force`` to redo).
"""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

import torch

from helpers.lab.hybrids import FAMILIES, Hybrid  # every family, the hybrids included
from helpers.lab.model import LabConfig, TinyTransformer
from helpers.lab.positional import make_positional
from helpers.lab.train import FINE_TUNE, TrainLog, TrainSettings
from helpers.methods import POSITIONAL_FAMILIES

CHECKPOINT_DIR = Path(__file__).resolve().parent / "checkpoints"

L = 64  # the pre-training length of every "tiny" model (the fast scale the notebooks use)
FT_FACTOR = 4  # fine-tunes run at FT_FACTOR·L with scale factor FT_FACTOR
ROPE_BASE = 500.0
#: The lab's pre-training seeds: the shipped records (``results/results.json``) cover every seed of every stated
#: model (both scales' families and fine-tunes); the learning-rate sweep, the exception, has :data:`SHIPPED_SEEDS`.
SEEDS = tuple(range(10))
#: The seeds whose checkpoints ship (the notebooks load them live; 23 MB of the 25 MB budget) and the default of
#: ``python -m helpers.lab train``; any other seed retrains with ``train NAME --seeds K --out DIR``.
SHIPPED_SEEDS = (0, 1, 2)
SCALE = "tiny"  # the default scale
FT_LRS = ("1e-3", "3e-4", "1e-4")  # the fine-tunes' learning-rate sweep; the first is the shipped recipe's
STORAGE_DTYPES = {"float32": torch.float32, "float16": torch.float16}
#: The largest change float16 storage makes to any record of the sweep's 24 checkpoints (both scales, 3 seeds):
#: ``python scripts/measure_float16_effect.py`` retrains each in float32 and evaluates both. The 12 `small` runs
#: reproduce their shipped float16 files bit for bit, so there the float32 weights are the originals (at most 0.00012
#: nats, no passkey cell moved); the 12 `tiny` runs (trained earlier, with older code or on another CPU) do not, so
#: there the number also holds the retraining's own difference (0.00008 nats, one cell of rope+yarn_ft_lr3e-4 seed 0 at 8L by 1 key).
FLOAT16_EFFECT = {"max_loss_change_nats": 0.00012, "passkey_cells_changed": 1, "passkey_cells": 96, "by_keys": 1}
#: What retraining reproduces (docs/benchmarks.md "retraining the lab", issue 24): on the CPU kind that made them
#: (same SIMD kernels, torch version and one thread) these shipped files came back bit for bit; on another CPU kind
#: (AVX-512 instead of AVX2) ``rope`` seed 0 came back with weights up to 0.08 apart (forcing AVX2 kernels there gave
#: a third set), its findings' verdicts unchanged but 22 passkey cells moved.
REPRODUCIBILITY = {
    "bit_identical_same_cpu": (
        "`nope`",
        "`sinusoidal`",
        "`learned`",
        "`rope` (seed 0)",
        "`small/rope` (seed 0)",
        "the 12 `small` sweep runs",
    ),
    "not_bit_identical_same_cpu": ("`alibi`", "`t5_bias`", "the 12 `tiny` sweep runs"),
    "other_cpu_max_weight_change": 0.08,
    "other_cpu_passkey_cells_moved": 22,
}


def reproducibility_text() -> str:
    """What a retrain reproduces, as the generated documents say it (from :data:`REPRODUCIBILITY`)."""
    r = REPRODUCIBILITY
    return (
        "Retraining reproduces a checkpoint bit for bit only on the same kind of CPU (the same SIMD kernels, e.g. AVX2 "
        "against AVX-512), with the same torch version and one thread: there "
        f"{', '.join(r['bit_identical_same_cpu'])} came back byte for byte, "
        f"while {', '.join(r['not_bit_identical_same_cpu'])} (trained with "
        "earlier code) did not. On another kind of CPU a retrain gives other weights (for `rope` seed 0 up to "
        f"{r['other_cpu_max_weight_change']} apart, with {r['other_cpu_passkey_cells_moved']} passkey cells moved). "
        "What must survive a retrain is the conclusions, not the weights: the findings' verdicts, and records within "
        "the evaluation noise (`tests/test_lab.py` retrains `rope+linear_ft` seed 0 from the shipped `rope` and checks "
        "its records against the shipped ones within the noise of `helpers/lab/results/eval_noise.json`)."
    )


@dataclasses.dataclass(frozen=True)
class Recipe:
    """Everything that determines a checkpoint except the seed.

    ``config``: the :class:`LabConfig` of a pre-training (its ``seed`` is replaced per seed), or None for a
    fine-tune of ``init_from`` with ``rope_scaling``. ``settings``: the :class:`TrainSettings` (``seed`` replaced).
    ``storage``: the dtype the weights are saved in (:data:`STORAGE_DTYPES`); training always runs in float32 and
    :func:`load_model` casts back to float32. The learning-rate sweep's extra checkpoints are stored as float16
    (half the bytes, so the sweep at both scales fits the 25 MB budget); every other checkpoint as float32.
    """

    name: str
    description: str
    settings: TrainSettings
    config: LabConfig | None = None
    init_from: str | None = None
    rope_scaling: dict | None = None
    storage: str = "float32"

    def settings_for(self, seed: int) -> TrainSettings:
        """Data seed k for seed k (a fine-tune of seed k also draws from k, at its own length and batch size)."""
        return dataclasses.replace(self.settings, seed=seed)

    def config_for(self, seed: int) -> LabConfig | None:
        return None if self.config is None else dataclasses.replace(self.config, seed=seed)

    def command(self, seed: int) -> str:
        return f"python -m helpers.lab train {self.name} --seeds {seed}"


@dataclasses.dataclass(frozen=True)
class Scale:
    """One size of the lab: its training length L, architecture, pre-training and fine-tuning settings.

    ``families``: the positional families pre-trained at this scale (RoPE's fine-tunes are added for every scale).
    ``hybrids``: the hybrid families (group ``hybrid``) that have a recipe at this scale, the same pre-training
    settings as ``families``; their models are in :data:`HYBRID_MODELS`, trained on request, not shipped. Models of scale ``tiny`` keep their bare names (``rope``); the others are ``<scale>/<name>`` (``small/rope``),
    stored in a subdirectory of the checkpoints.
    """

    name: str
    train_len: int
    config: dict
    pretrain: TrainSettings
    fine_tune: TrainSettings
    families: tuple[str, ...]
    why: str
    hybrids: tuple[str, ...] = ()

    def model_name(self, model: str) -> str:
        """The checkpoint name of ``model`` (``rope``, ``rope+yarn_ft``, ...) at this scale."""
        return model if self.name == "tiny" else f"{self.name}/{model}"


PRETRAIN = TrainSettings(steps=3000, batch_size=32, lr=3e-3, warmup=50, passkey_fraction=0.5, passkey_after=0.3)
SCALES: dict[str, Scale] = {
    "tiny": Scale(
        "tiny",
        L,
        {"train_len": L, "max_seq_len": 2 * L, "rope_base": ROPE_BASE, "t5_max_distance": L},
        PRETRAIN,
        FINE_TUNE,
        tuple(f for f, cls in FAMILIES.items() if cls.group == "main"),
        "the notebooks' scale: 4 heads of d_h = 16 (8 pairs), base 500, L = 64; YaRN's kept band is empty here "
        "(no pair makes 32 turns within L; pair 0 survives only by the code's clamp)",
        tuple(f for f, cls in FAMILIES.items() if cls.group == "hybrid"),
    ),
    "small": Scale(
        "small",
        256,
        {
            "train_len": 256,
            "max_seq_len": 512,
            "n_heads": 2,
            "head_dim": 64,
            "rope_base": 1250.0,
            "t5_max_distance": 256,
        },
        dataclasses.replace(PRETRAIN, batch_size=8, steps=8000, passkey_after=0.2),
        dataclasses.replace(FINE_TUNE, length=FT_FACTOR * 256, batch_size=4),
        ("rope",),
        "a scale that hosts YaRN's three bands with β_fast = 32, β_slow = 1: 2 heads of d_h = 64 (32 pairs), "
        "base 1250, L = 256: pairs 0 and 1 make more than 32 turns within L (kept), pairs 17–31 less than one "
        "(interpolated), the slowest wavelength is ≈ 25·L; the same 2048 tokens per step as tiny, 8000 steps with "
        "passkey rows from step 1600 (with 4000 steps, the previous recipe, only one seed of three learned the "
        "passkey task; a 3000-step development trial learned the copy task but hardly any passkeys)",
    ),
}
#: LabConfig settings of one family on top of its scale's, with a note for its recipe's description. T5's bias: the
#: table starts on ALiBi's lines and learns at a tenth of the run's rate. With T5's N(0, 0.02²) start (or the ALiBi
#: start at the full rate) the table learned to avoid the nearest keys before a previous-token head formed, and the
#: model never learned the copy task on any seed (``scripts/t5_diagnosis.py``, notebook 06 §5). T5's start with the
#: table at 10× the rate also learned it, on the one seed it was run on (0); this recipe is the one run on seeds 0-2.
#:
#: The hybrids (2 layers at tiny, so each schedule is one layer of each kind). ``irope``: layer 0 RoPE (base 500, as
#: ``rope``), layer 1 NoPE, both attending to every earlier key (Llama 4's RoPE layers attend in chunks; these do not).
#: ``irope_temp``: the same, layer 1's queries scaled by τ(m) = 1 + 0.1·ln(1 + ⌊(m + 1)/F⌋) with F = L/32 = 2:
#: Llama 4 keeps α = 0.1, F = 8192 at a 256K training length (256K/8192 = 32), so over 0..L the lab's τ spans what
#: Llama 4's spans over its training context (1 to 1 + 0.1·ln 33 ≈ 1.35), and reaches 1 + 0.1·ln 257 ≈ 1.55 at 8L.
#: ``local_global``: layer 0 sliding window W = L/4 = 16 with base 500 (the lab's), layer 1 full attention with base
#: 50 000 = 100 × 500 (Gemma 3's ratio 10⁶/10⁴); W < L, so every training sequence has keys beyond the window (Gemma 3:
#: W = 1024 at a 32K training length, Gemma 2: 4096 at 8K).
HYBRID_FLOOR_SCALE = L // 32
HYBRID_WINDOW = L // 4
FAMILY_CONFIG = {
    "t5_bias": {"t5_init": "alibi", "t5_table_lr_scale": 0.1},
    "irope": {"no_rope_layer_interval": 2},
    "irope_temp": {"no_rope_layer_interval": 2, "attn_scale": 0.1, "floor_scale": HYBRID_FLOOR_SCALE},
    "local_global": {"global_rope_base": 100 * ROPE_BASE, "sliding_window": HYBRID_WINDOW, "sliding_window_pattern": 2},
}
_FAMILY_NOTES = {"t5_bias": "started on ALiBi's lines, table at 0.1x the learning rate"}


def _note(family: str, config: LabConfig) -> str:
    """The recipe description's note: the family's (:data:`_FAMILY_NOTES`), or a hybrid's layer schedule as its
    model builds it ("layer 0: RoPE b=500, window 16; layer 1: ...")."""
    positional = make_positional(config)
    if isinstance(positional, Hybrid):
        return "; ".join(f"layer {i}: {kind}" for i, kind in enumerate(positional.schedule))
    return _FAMILY_NOTES.get(family, "")


def fine_tune_name(key: str, lr: str = FT_LRS[0]) -> str:
    """``rope+<key>_ft`` for the shipped learning rate, ``rope+<key>_ft_lr<lr>`` for the sweep's others."""
    return f"rope+{key}_ft" + ("" if lr == FT_LRS[0] else f"_lr{lr}")


RECIPES: dict[str, Recipe] = {}
for _scale in SCALES.values():
    _L = _scale.train_len
    for _family in (*_scale.families, *_scale.hybrids):
        _config = LabConfig.build(_family, shared=True, **_scale.config, **FAMILY_CONFIG.get(_family, {}))
        _text = _note(_family, _config)
        RECIPES[_scale.model_name(_family)] = Recipe(
            _scale.model_name(_family),
            f"{POSITIONAL_FAMILIES[_family].description}"
            + (f" ({_text})" if _text else "")
            + f" (scale {_scale.name}, L = {_L})",
            _scale.pretrain,
            config=_config,
        )
    for _key, _scaling in (
        ("linear", {"rope_type": "linear", "factor": float(FT_FACTOR)}),
        ("yarn", {"rope_type": "yarn", "factor": float(FT_FACTOR), "original_max_position_embeddings": _L}),
    ):
        for _lr in FT_LRS:
            _name = _scale.model_name(fine_tune_name(_key, _lr))
            RECIPES[_name] = Recipe(
                _name,
                f"rope fine-tuned with {_key} (factor {FT_FACTOR}) at {FT_FACTOR * _L} tokens, lr {_lr} "
                f"(scale {_scale.name})",
                dataclasses.replace(_scale.fine_tune, lr=float(_lr)),
                init_from=_scale.model_name("rope"),
                rope_scaling=_scaling,
                storage="float32" if _lr == FT_LRS[0] else "float16",
            )
#: The hybrid families' models (trained on request: ``python -m helpers.lab train hybrid``; not shipped).
HYBRID_MODELS = tuple(_scale.model_name(f) for _scale in SCALES.values() for f in _scale.hybrids)
#: The shipped models: every recipe but the hybrids' (the default of ``train`` and ``evaluate``).
MODELS = tuple(name for name in RECIPES if name not in HYBRID_MODELS)


def scale_of(name: str) -> str:
    """The scale of checkpoint ``name`` (``small/rope`` → ``small``; bare names are ``tiny``)."""
    return name.split("/", 1)[0] if "/" in name else "tiny"


def recipe(name: str) -> Recipe:
    """The :class:`Recipe` of model ``name`` (one of :data:`MODELS` or :data:`HYBRID_MODELS`)."""
    if not isinstance(name, str) or name not in RECIPES:
        raise ValueError(f"model name must be one of {list(RECIPES)}, got {name!r}")
    return RECIPES[name]


def _seed(seed: int) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be an int >= 0, got {seed!r}")
    return seed


def checkpoint_id(name: str, seed: int) -> str:
    """``"<model>.seed<k>"``: the file stem of a checkpoint."""
    return f"{recipe(name).name}.seed{_seed(seed)}"


def checkpoint_paths(name: str, seed: int, directory: Path = CHECKPOINT_DIR) -> tuple[Path, Path]:
    """(weights ``.pt``, metadata ``.json``) of checkpoint (name, seed)."""
    stem = checkpoint_id(name, seed)
    return Path(directory) / f"{stem}.pt", Path(directory) / f"{stem}.json"


def is_trained(name: str, seed: int, directory: Path = CHECKPOINT_DIR) -> bool:
    """True when both files exist (the JSON is written last)."""
    return all(p.exists() for p in checkpoint_paths(name, seed, directory))


def _atomic_write(path: Path, write) -> None:
    tmp = path.with_name(path.name + ".tmp")
    write(tmp)
    os.replace(tmp, path)


def save_checkpoint(
    model: TinyTransformer,
    name: str,
    seed: int,
    log: TrainLog,
    *,
    directory: Path = CHECKPOINT_DIR,
    command: str | None = None,
) -> Path:
    """Write ``<model>.seed<k>.pt`` (the state_dict in the recipe's ``storage`` dtype, tensors only) then ``.json``
    (config, settings, timing, ``stored_dtype``)."""
    spec = recipe(name)
    directory = Path(directory)
    weights, meta_path = checkpoint_paths(name, seed, directory)
    weights.parent.mkdir(parents=True, exist_ok=True)
    state = stored_state(model.state_dict(), spec.storage)
    _atomic_write(weights, lambda p: torch.save(state, p))
    meta = {
        "name": spec.name,
        "seed": seed,
        "stored_dtype": spec.storage,
        "scale": scale_of(spec.name),
        "description": spec.description,
        "command": command or spec.command(seed),
        "config": model.config.to_dict(),
        "rows_reached": model.rows_reached,
        "n_parameters": model.n_parameters,
        "init_from": checkpoint_id(spec.init_from, seed) if spec.init_from else None,
        "settings": log.settings.to_dict(),
        "training": {
            "steps": log.steps,
            "length": log.length,
            "batch_size": log.batch_size,
            "seconds": round(log.seconds, 1),
            "threads": log.threads,
            "final_loss": round(log.final_loss, 4),
            "loss_every_50_steps": [round(x, 4) for x in log.losses[::50]],
        },
        "torch_version": torch.__version__,
    }
    _atomic_write(meta_path, lambda p: p.write_text(json.dumps(meta, indent=2) + "\n"))
    return weights


def stored_state(state: dict[str, torch.Tensor], storage: str) -> dict[str, torch.Tensor]:
    """A state_dict as saved: floating tensors cast to ``storage`` (a key of :data:`STORAGE_DTYPES`), detached and
    contiguous; others unchanged."""
    if storage not in STORAGE_DTYPES:
        raise ValueError(f"storage must be one of {list(STORAGE_DTYPES)}, got {storage!r}")
    dtype = STORAGE_DTYPES[storage]
    return {
        k: (v.detach().to(dtype) if v.is_floating_point() else v.detach()).clone().contiguous()
        for k, v in state.items()
    }


def checkpoint_metadata(name: str, seed: int = 0, *, directory: Path = CHECKPOINT_DIR) -> dict:
    """The JSON written next to checkpoint (``name``, ``seed``)."""
    _, path = checkpoint_paths(name, seed, directory)
    if not path.exists():
        raise FileNotFoundError(
            f"checkpoint {checkpoint_id(name, seed)!r} is not trained yet: {path} is missing; "
            f"run `{recipe(name).command(seed)}`"
        )
    return json.loads(path.read_text())


_LOADED: dict[tuple[str, str, int], TinyTransformer] = {}


def load_model(name: str, seed: int = 0, *, directory: Path = CHECKPOINT_DIR, cache: bool = True) -> TinyTransformer:
    """Checkpoint (``name``, ``seed``) in eval mode: ``torch.load(weights_only=True)`` (plain tensors, no arbitrary
    unpickling) plus its JSON config. ``cache``: return the same object on later calls in this process (evaluation
    never changes a model; pass ``cache=False`` for a private copy to modify)."""
    key = (str(Path(directory)), recipe(name).name, _seed(seed))
    if cache and key in _LOADED:
        return _LOADED[key]
    meta = checkpoint_metadata(name, seed, directory=directory)
    model = TinyTransformer(LabConfig.from_dict(meta["config"]))
    weights, _ = checkpoint_paths(name, seed, directory)
    state = torch.load(weights, map_location="cpu", weights_only=True)
    model.load_state_dict({k: v.float() for k, v in state.items()})
    model.rows_reached = int(meta["rows_reached"])
    model.eval()
    if cache:
        _LOADED[key] = model
    return model


def list_checkpoints(*, directory: Path = CHECKPOINT_DIR) -> list[dict]:
    """One dict per checkpoint on disk: name, seed, family, rope_scaling, train_len, steps, length, seconds,
    final_loss, size_bytes, command (in :data:`RECIPES` order, then by seed; hybrids too where they were trained)."""
    rows = []
    order = list(RECIPES)
    for name in order:
        for path in sorted(Path(directory).glob(f"{name}.seed*.json")):  # "small/rope.seed*" looks in small/
            meta = json.loads(path.read_text())
            if meta["name"] != name:
                continue
            config = LabConfig.from_dict(meta["config"])
            weights = path.with_name(path.name[: -len(".json")] + ".pt")
            rows.append(
                {
                    "name": name,
                    "scale": scale_of(name),
                    "seed": meta["seed"],
                    "family": config.family,
                    "rope_scaling": getattr(config, "rope_scaling", None),
                    "train_len": config.train_len,
                    "steps": meta["training"]["steps"],
                    "length": meta["training"]["length"],
                    "seconds": meta["training"]["seconds"],
                    "final_loss": meta["training"]["final_loss"],
                    "stored_dtype": meta.get("stored_dtype", "float32"),
                    "size_bytes": weights.stat().st_size + path.stat().st_size,
                    "command": meta["command"],
                }
            )
    return sorted(rows, key=lambda r: (order.index(r["name"]), r["seed"]))


def write_checkpoint_index(directory: Path = CHECKPOINT_DIR) -> Path:
    """Write ``README.md`` in the checkpoint directory: one row per checkpoint with its size, measured training time
    and the command that reproduces it (generated from the JSON files, never typed in)."""
    rows = list_checkpoints(directory=directory)
    lines = [
        "# Lab checkpoints",
        "",
        "Generated by `python -m helpers.lab train` from the JSON next to each checkpoint. Weights are `state_dict`s",
        "(tensors only; `torch.load(weights_only=True)`), float32 except the learning-rate sweep's extra runs",
        "(`_lr3e-4`, `_lr1e-4`), stored as float16 to fit the 25 MB budget (trained in float32; loaded back as",
        "float32; storing them as float16 changed their records by at most "
        f"{FLOAT16_EFFECT['max_loss_change_nats']} nats of loss and moved {FLOAT16_EFFECT['passkey_cells_changed']} "
        f"of {FLOAT16_EFFECT['passkey_cells']} passkey cells by {FLOAT16_EFFECT['by_keys']} key, measured by",
        "`python scripts/measure_float16_effect.py`, which retrains them in float32); configs are JSON. Times are the",
        "wall-clock seconds recorded when each checkpoint was trained, with one torch thread; a run's time depends on",
        "the CPU and on what else it runs (`docs/benchmarks.md` times retraining on a free core).",
        "",
        reproducibility_text(),
        "",
        "| checkpoint | family | RoPE scaling | seed | steps | length | seconds | final loss | stored as | size (KB) "
        "| command |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        scaling = json.dumps(r["rope_scaling"]) if r["rope_scaling"] else "-"
        lines.append(
            f"| {r['name']} | {r['family']} | `{scaling}` | {r['seed']} | {r['steps']} | {r['length']} | "
            f"{r['seconds']:.1f} | {r['final_loss']:.3f} | {r['stored_dtype']} | {r['size_bytes'] / 1024:.0f} | "
            f"`{r['command']}` |"
        )
    total = sum(r["size_bytes"] for r in rows)
    lines += [
        "",
        f"Total: {len(rows)} checkpoints, {total / 1024 / 1024:.1f} MB; total training time "
        f"{sum(r['seconds'] for r in rows) / 60:.1f} min.",
        "",
    ]
    path = Path(directory) / "README.md"
    path.write_text("\n".join(lines))
    return path
