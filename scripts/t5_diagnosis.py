"""Why the lab's T5 bias did not learn the copy task, measured (notebook 06 §5 reads the result).

    python scripts/t5_diagnosis.py --work /tmp/t5diag            # train the missing variants, measure, write JSON
    python scripts/t5_diagnosis.py --work /tmp/t5diag --variants base@0 perlayer@0

Each variant is the lab's ``t5_bias`` pre-training recipe (``helpers.lab.checkpoints.RECIPES["t5_bias"]`` before
the change: T5's N(0, 0.02²) table, max_distance = L = 64, one table shared by both layers, the run's learning
rate), with one thing changed:

* ``base``: nothing; ``md128``: T5's own max_distance = 128; ``perlayer``: one table per layer (T5 shares one);
* ``tlr10``: the table's learning rate × 10 (learned the copy task on seed 0); ``std0.125``: HF T5's initial
  spread, d_model^-0.5 (not run);
* ``local1``: every head starts on ALiBi's line (−s_h·d at each bucket's first distance d);
* ``local1+tlr0.1``: that start, and the table's learning rate × 0.1 (the recipe the lab adopted; the shipped
  ``t5_bias`` checkpoints are this recipe trained by ``python -m helpers.lab train t5_bias``).

``base@k`` are the ``t5_bias`` checkpoints shipped before the change: copy ``helpers/lab/checkpoints/t5_bias.seed<k>.pt``
of that commit into ``--work`` as ``base.seed<k>.pt`` to measure them rather than retrain them.

A variant trains once (about 100 s on a free core, 3000 steps, one thread) into ``--work`` (state dicts, kept, so a
re-run only measures). Measurements use the lab's evaluation data (:func:`helpers.lab.data.lm_batch` with
``EVAL_SEED``, the same 24 documents and 60 passkeys as ``python -m helpers.lab evaluate``): copy-LM loss at L and 8L,
passkey accuracy at L, layer 0's weight on the previous token per head, and the learned table (first 17 buckets).
Writes ``helpers/lab/results/t5_diagnosis.json``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from helpers import score_biases
from helpers.lab import train as lab_train
from helpers.lab.checkpoints import PRETRAIN, SCALES
from helpers.lab.data import lm_batch, passkey_batch, random_keys
from helpers.lab.evaluate import DEPTHS, EVAL_SEED, N_ATTENTION, N_LM, N_PER_DEPTH
from helpers.lab.model import LabConfig, TinyTransformer

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "helpers" / "lab" / "results" / "t5_diagnosis.json"
#: The runs notebook 06 §5 quotes: the old recipe on its three seeds (the checkpoints shipped before the change), then
#: one change at a time on seed 0. (``std0.125`` is defined but was not run.)
DEFAULT = ["base@0", "base@1", "base@2", "md128@0", "perlayer@0", "tlr10@0", "local1@0", "local1+tlr0.1@0"]


class PerLayer(TinyTransformer):
    """One T5 table per layer: the positional object's table is layer 0's; ``extra[i − 1]`` is layer i's."""

    def __init__(self, config: LabConfig):
        super().__init__(config)
        self.extra = torch.nn.ModuleList(
            score_biases.T5RelativeBias(
                config.n_heads,
                num_buckets=config.t5_num_buckets,
                max_distance=config.t5_max_distance,
                bidirectional=False,
                seed=config.seed + 1000 * i,
            )
            for i in range(1, config.n_layers)
        )

    def forward(self, tokens, *, return_attention=False, logits_at=None, rope_scaling=None, kv_cache=False):
        h = self.token_embedding(tokens) * self.embed_scale  # (B, T, D)
        t = tokens.shape[1]
        biases = [self.positional.score_bias(t)] + [e(t) for e in self.extra]  # each (H, T, T)
        weights = []
        for i, block in enumerate(self.blocks):
            h, w = block(h, self.positional, None, biases[i], return_attention, False, None)  # (B, T, D)
            weights.append(w)
        logits = self.lm_head(self.ln_f(h))  # (B, T, V)
        return (logits, tuple(weights)) if return_attention else logits


def options(name: str) -> tuple[dict, dict]:
    """(LabConfig overrides, training options) of a variant name such as ``local1+tlr0.1``."""
    cfg = dict(SCALES["tiny"].config)
    opts = {"per_layer": False, "table_lr": None, "init_std": None, "init_local": None}
    for part in name.split("+"):
        if part == "base":
            pass
        elif part == "md128":
            cfg["t5_max_distance"] = 128
        elif part == "perlayer":
            opts["per_layer"] = True
        elif part.startswith("tlr"):
            opts["table_lr"] = float(part[3:])
        elif part.startswith("std"):
            opts["init_std"] = float(part[3:])
        elif part.startswith("local"):
            opts["init_local"] = float(part[5:])
        else:
            raise ValueError(f"unknown variant part {part!r} in {name!r}")
    return cfg, opts


def build(name: str, seed: int):
    cfg, opts = options(name)
    config = LabConfig(family="t5_bias", seed=seed, **cfg)
    model = (PerLayer if opts["per_layer"] else TinyTransformer)(config)
    tables = [model.positional.relative] + (list(model.extra) if opts["per_layer"] else [])
    for t in tables:
        if opts["init_std"] is not None:
            g = torch.Generator().manual_seed(seed)
            t.table.data = torch.randn(t.table.shape, generator=g) * opts["init_std"]
        if opts["init_local"] is not None:
            d = torch.arange(0, 4 * config.t5_max_distance)
            b = score_biases.t5_relative_bucket(
                -d, bidirectional=False, num_buckets=config.t5_num_buckets, max_distance=config.t5_max_distance
            )
            first = torch.full((config.t5_num_buckets,), float(d[-1]))
            for bucket in range(config.t5_num_buckets):
                hit = d[b == bucket]
                if len(hit):
                    first[bucket] = hit.min().float()
            slopes = torch.tensor([2.0 ** (-8 * (h + 1) / config.n_heads) for h in range(config.n_heads)])
            t.table.data = -(first[:, None] * slopes[None, :]) * opts["init_local"]
    return model, opts, tables


def optimizer_factory(tables, table_lr):
    """The lab's optimiser, with the tables in their own group at ``table_lr`` × the run's rate (if given)."""
    ids = {id(t.table) for t in tables}

    def make_optimizer(model, lr):
        decay, no_decay, tab = [], [], []
        for name, p in model.named_parameters():
            if id(p) in ids:
                tab.append(p)
                continue
            matrix = p.ndim == 2 and not name.startswith(("token_embedding", "positional.", "extra."))
            (decay if matrix else no_decay).append(p)
        groups = [
            {"params": decay, "weight_decay": 0.01, "lr_scale": 1.0},
            {"params": no_decay, "weight_decay": 0.0, "lr_scale": 1.0},
        ]
        if table_lr is None:
            groups[1]["params"] += tab
        else:  # scaled at each step below (how these runs were made; the lab's own lr_scale does the same)
            groups.append({"params": tab, "weight_decay": 0.0, "lr_scale": 1.0, "mult": table_lr})
        opt = torch.optim.AdamW(groups, lr=lr, betas=(0.9, 0.95))
        step = opt.step

        def scaled_step(*a, **k):  # run_training sets every group's lr each step; scale the table's here
            saved = [g["lr"] for g in opt.param_groups]
            for g in opt.param_groups:
                g["lr"] = g["lr"] * g.get("mult", 1.0)
            out = step(*a, **k)
            for g, s in zip(opt.param_groups, saved, strict=True):
                g["lr"] = s
            return out

        opt.step = scaled_step
        return opt

    return make_optimizer


@torch.inference_mode()
def measure(model: TinyTransformer, tables) -> dict:
    """The lab's evaluation data: loss at L and 8L, passkey at L, layer-0 previous-token weight per head."""
    out = {}
    for length in (64, 512):
        tok, tgt = lm_batch(N_LM, length, (EVAL_SEED, length))  # (B, T), (B, T)
        out[f"loss_{length}"] = F.cross_entropy(model(tok).transpose(1, 2), tgt).item()
    depth = np.repeat(np.asarray(DEPTHS, dtype=np.float64), N_PER_DEPTH)  # (B,)
    batch = passkey_batch(random_keys(len(depth), (EVAL_SEED, 64, 1)), depth, 64)
    logits = model(batch.tokens)  # (B, T, V)
    idx = batch.answer_positions  # (B, n)
    answer = torch.gather(logits, 1, idx[..., None].expand(-1, -1, logits.shape[-1])).argmax(-1)  # (B, n)
    out["passkey_64"] = (answer == batch.keys).all(1).double().mean().item()
    tok, _ = lm_batch(N_ATTENTION, 64, (EVAL_SEED, 64))
    _, att = model(tok, return_attention=True)
    t = torch.arange(1, 64)
    out["previous_token"] = [w[:, :, t, t - 1].mean((0, 2)).tolist() for w in att]  # per layer, per head
    out["tables"] = [tb.table.detach().T[:, :17].tolist() for tb in tables]  # per table: (H, 17 buckets)
    out["layer0_spread"] = layer0_spread(model, tok)
    return out


def layer0_spread(model: TinyTransformer, tokens: torch.Tensor) -> dict:
    """How much layer 0's scores vary over the keys of a query, per head: the standard deviation over the visible
    keys of q·k/√d_h (content) and of the bias, averaged over queries and documents. Equal sizes mean the bias moves
    the attention as much as the content does."""
    h = model.token_embedding(tokens) * model.embed_scale  # (B, T, D)
    block = model.blocks[0]
    x = block.ln1(h)
    b, t, _ = x.shape
    heads, dh = model.config.n_heads, model.config.head_dim
    q, k, _ = block.attn.qkv(x).view(b, t, 3, heads, dh).permute(2, 0, 3, 1, 4)  # each (B, H, T, d_h)
    visible = torch.tril(torch.ones(t, t, dtype=torch.bool))  # (T, T)

    def spread(scores):  # (B, H, T, T) -> (H,)
        s = torch.where(visible, scores, torch.nan)
        dev = s - torch.nanmean(s, -1, keepdim=True)
        return torch.nanmean(torch.sqrt(torch.nanmean(dev**2, -1))[:, :, 1:], (0, 2)).tolist()  # queries t >= 1

    content = q @ k.transpose(-1, -2) / dh**0.5  # (B, H, T, T)
    bias = model.positional.score_bias(t)[None].expand(b, -1, -1, -1)  # (B, H, T, T)
    return {"content": spread(content), "bias": spread(bias)}


def run(spec: str, work: Path) -> dict:
    name, seed = spec.rsplit("@", 1)
    seed = int(seed)
    model, opts, tables = build(name, seed)
    path = work / f"{name}.seed{seed}.pt"
    record = {"variant": name, "seed": seed}
    if path.exists():
        model.load_state_dict(torch.load(path, weights_only=True))
    else:
        lab_train.make_optimizer = optimizer_factory(tables, opts["table_lr"])
        settings = dataclasses.replace(PRETRAIN, seed=seed)
        start = time.perf_counter()
        lab_train.run_training(model, settings, progress=False)
        record["seconds"] = round(time.perf_counter() - start, 1)
        torch.save(model.state_dict(), path)
    model.eval()
    record.update(measure(model, tables))
    return record


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", type=Path, required=True, help="directory for the variants' state dicts")
    parser.add_argument("--variants", nargs="+", default=DEFAULT, help="name@seed (default: the shipped set)")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    args.work.mkdir(parents=True, exist_ok=True)
    records = []
    for spec in args.variants:
        records.append(run(spec, args.work))
        print(json.dumps({k: v for k, v in records[-1].items() if k != "tables"}), flush=True)
    OUT.write_text(json.dumps({"recipe": "helpers.lab.checkpoints PRETRAIN, tiny scale", "runs": records}, indent=1))
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
