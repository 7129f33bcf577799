"""Fixture benchmarks (datasets) and evaluation rows (catalog-api.md §2.0, §2.9-§2.11, §6.5).

The rows are shaped to exercise the client's leaderboard logic:

* ImageNet-1k (id 72) has over 200 rows, generated deterministically, so a full
  metric scan needs three 100-row pages. Its metrics are Top-1 Accuracy, Top-5
  Accuracy (some as strings like "93.1%") and Params (some as "1,843"); parameter
  counts are known for most rows but not all; `is_open` cycles true/false/null;
  some rows are unranked; a few use "5-shot"/"zero-shot" methodology.
* COCO (id 6) carries the spec's Pareto fixture: Accurate (mAP 60, FPS 30), Fast
  (mAP "58", FPS "100") and Dominated (mAP 57, FPS 50), plus rows with `box AP`
  only, and a Mask R-CNN pair in two tasks that merges into one row.
* SWE-Bench Pro (id 42) carries the three "Agent | One" rows of §6.5 step 5 that
  merge into one, and an "Agent | Two" pair whose parameter counts disagree.
* MMLU has the same model at 5-shot and 0-shot (different merge keys).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Dataset:
    id: str
    slug: str
    name: str
    full_name: str
    description: str
    task_ids: tuple[str, ...]
    hf_url: str | None = None
    created_at: str = "2019-01-01T00:00:00Z"
    recent_paper_count: int = 0
    trend_score: float = 0.0


# fmt: off
DATASETS: tuple[Dataset, ...] = tuple(Dataset(*row) for row in (
    # id, slug, name, full name, description, tasks, HF URL, created, recent papers, trend
    ("72", "imagenet-1k", "ImageNet-1k", "ImageNet Large Scale Visual Recognition",
     "Image classification benchmark with 1,000 classes.", ("10",),
     "https://huggingface.co/datasets/ILSVRC/imagenet-1k", "2018-06-01T00:00:00Z", 6, 1.42),
    ("18", "cifar-10", "CIFAR-10", "Canadian Institute for Advanced Research 10",
     "Small-image classification benchmark with 10 classes.", ("10",),
     "https://huggingface.co/datasets/uoft-cs/cifar10", "2018-06-01T00:00:00Z", 1, 0.31),
    ("6", "coco", "COCO", "Microsoft COCO: Common Objects in Context",
     "Detection and segmentation benchmark of everyday scenes.", ("11", "22"),
     "https://huggingface.co/datasets/detection-datasets/coco", "2018-06-01T00:00:00Z",
     4, 1.10),
    ("42", "swe-bench-pro", "SWE-Bench Pro", "SWE-Bench Pro", "A coding-agent benchmark.",
     ("3", "8"), None, "2025-09-01T00:00:00Z", 5, 2.75),
    ("12", "wmt2014-english-german", "WMT2014 English-German",
     "WMT 2014 English-German news translation", "News translation benchmark.", ("6",),
     "https://huggingface.co/datasets/wmt/wmt14", "2018-06-01T00:00:00Z"),
    ("13", "wmt2014-english-french", "WMT2014 English-French",
     "WMT 2014 English-French news translation", "News translation benchmark.", ("6",),
     "https://huggingface.co/datasets/wmt/wmt14", "2018-06-01T00:00:00Z"),
    ("14", "librispeech-test-clean", "LibriSpeech test-clean", "LibriSpeech clean test split",
     "Read English speech recognition benchmark.", ("260",),
     "https://huggingface.co/datasets/openslr/librispeech_asr", "2018-07-01T00:00:00Z",
     1, 0.52),
    ("15", "audioset", "AudioSet", "AudioSet", "Large-scale audio event benchmark.",
     ("259",), None, "2019-02-01T00:00:00Z"),
    ("30", "iiit5k", "IIIT5K", "IIIT 5K-Word", "Cropped scene text word recognition.",
     ("17",), None, "2018-09-01T00:00:00Z", 1, 0.88),
    ("31", "iam", "IAM", "IAM Handwriting Database", "Handwritten English lines.",
     ("19",), None, "2019-01-15T00:00:00Z", 1, 0.64),
    ("32", "icdar-2015", "ICDAR 2015", "ICDAR 2015 Incidental Scene Text",
     "Incidental scene text detection.", ("18",), None, "2018-09-01T00:00:00Z", 1, 0.47),
    # No evaluations at all: exercises minimum-evaluation filters.
    ("33", "total-text", "Total-Text", "Total-Text", "Curved scene text detection.",
     ("18",), None, "2020-01-01T00:00:00Z"),
    ("16", "wikitext-103", "WikiText-103", "WikiText-103",
     "Word-level language modelling on Wikipedia articles.", ("12",),
     "https://huggingface.co/datasets/Salesforce/wikitext", "2018-06-01T00:00:00Z"),
    ("19", "mmlu", "MMLU", "Massive Multitask Language Understanding",
     "Multiple-choice questions across 57 subjects.", ("13",),
     "https://huggingface.co/datasets/cais/mmlu", "2021-01-01T00:00:00Z", 2, 1.95),
    ("20", "math-500", "MATH-500", "MATH-500", "Competition mathematics subset.", ("32",),
     "https://huggingface.co/datasets/HuggingFaceH4/MATH-500", "2024-06-01T00:00:00Z",
     2, 2.40),
    ("21", "casia-b", "CASIA-B", "CASIA Gait Database B", "Indoor gait recognition.",
     ("20",), None, "2019-08-01T00:00:00Z"),
    ("25", "gait3d", "Gait3D", "Gait3D", "Gait recognition in the wild.", ("20",),
     None, "2022-03-01T00:00:00Z"),
    ("22", "wsj0-2mix", "WSJ0-2mix", "WSJ0 two-speaker mixtures",
     "Two-speaker speech separation.", ("261",), None, "2019-04-01T00:00:00Z"),
    ("24", "cifar-10-image-generation", "CIFAR-10 Image Generation",
     "CIFAR-10 unconditional image generation", "Unconditional 32×32 generation.",
     ("25",), None, "2019-06-01T00:00:00Z", 1, 0.35),
))
# fmt: on


def _ev(
    paper_id: str,
    task_id: str,
    dataset_id: str,
    model_name: str,
    metrics: dict[str, Any],
    best_rank: int | None,
    *,
    num_parameters: int | None = None,
    is_open: bool | None = True,
    methodology: str = "",
    harness: str | None = None,
    split: str = "test",
    best_metric: str | None = None,
    uses_additional_data: bool = False,
) -> dict[str, Any]:
    """One evaluation spec; the catalog adds IDs and paper/task/dataset names."""
    return {
        "paper_id": paper_id,
        "task_id": task_id,
        "dataset_id": dataset_id,
        "model_name": model_name,
        "harness": harness,
        "metrics": metrics,
        "best_metric": best_metric or next(iter(metrics)),
        "best_rank": best_rank,
        "num_parameters": num_parameters,
        "is_open": is_open,
        "methodology": methodology,
        "split": split,
        "uses_additional_data": uses_additional_data,
    }


M = 1_000_000
B = 1_000_000_000

# fmt: off
HAND_WRITTEN: tuple[dict[str, Any], ...] = (
    # COCO: the Pareto fixture of §6.5 step 7 and a cross-task merge.
    _ev("91020", "11", "6", "Accurate", {"mAP": 60, "FPS": 30}, 1,
        num_parameters=310 * M, split="test-dev"),
    _ev("91020", "11", "6", "Fast", {"mAP": "58", "FPS": "100"}, 2,
        num_parameters=25 * M, split="test-dev"),
    _ev("291", "11", "6", "Dominated", {"mAP": 57, "FPS": 50}, 3,
        num_parameters=60 * M, is_open=False, split="test-dev"),
    _ev("612", "11", "6", "Mask R-CNN (ResNeXt-101-FPN)", {"box AP": 39.8}, 4,
        num_parameters=107 * M, split="test-dev", harness="detectron2"),
    _ev("612", "22", "6", "Mask R-CNN (ResNeXt-101-FPN)", {"mask AP": 37.1}, 1,
        num_parameters=107 * M, split="test-dev", harness="detectron2"),
    _ev("288", "11", "6", "Faster R-CNN (ResNet-101)", {"box AP": 34.9}, 5,
        is_open=None, split="test-dev"),
    _ev("291", "11", "6", "YOLO (VGG-16)", {"mAP": 21.6, "FPS": 21}, 6,
        num_parameters=140 * M, split="test-dev"),
    # SWE-Bench Pro: three "Agent | One" rows merge into one (§6.5 step 5).
    _ev("4880", "3", "42", "Agent | One", {"Resolved": 55.5}, 1,
        num_parameters=3 * B, harness="verified"),
    _ev("4880", "3", "42", "Agent | One", {"Pass@1": 50}, 2,
        num_parameters=3 * B, harness="verified"),
    _ev("4880", "8", "42", "Agent | One", {"Resolved": 55.5}, 4,
        num_parameters=3 * B, harness="verified"),
    # "Agent | Two": siblings disagree on the parameter count, so the merged count is null.
    _ev("6230", "3", "42", "Agent | Two", {"Resolved": 41.2}, 3,
        num_parameters=7 * B, harness="verified"),
    _ev("6230", "3", "42", "Agent | Two", {"Pass@1": 38.0}, 4,
        num_parameters=8 * B, harness="verified"),
    _ev("4880", "3", "42", "Agent | Three", {"Resolved": 30.1}, 5,
        is_open=False, harness="verified"),
    _ev("91001", "8", "42", "Agent | Four", {"Resolved": "12.5%"}, 6,
        num_parameters=1_500 * M, harness="verified"),
    # Translation.
    _ev("755", "6", "12", "Transformer (big)", {"BLEU score": 28.4}, 1,
        num_parameters=213 * M, harness="fairseq"),
    _ev("755", "6", "12", "Transformer (base)", {"BLEU score": 27.3}, 2,
        num_parameters=65 * M, harness="fairseq"),
    _ev("755", "6", "13", "Transformer (big)", {"BLEU score": 41.8}, 1,
        num_parameters=213 * M, harness="fairseq"),
    # Speech.
    _ev("2305", "260", "14", "wav2vec 2.0 Large", {"Word Error Rate (WER)": 1.8}, 1,
        num_parameters=317 * M),
    _ev("2305", "260", "14", "wav2vec 2.0 Base", {"Word Error Rate (WER)": 2.1}, 2,
        num_parameters=95 * M),
    _ev("91010", "260", "14", "Sparse ASR (on-device)", {"Word Error Rate (WER)": 2.9}, 3,
        num_parameters=120 * M),
    _ev("2305", "259", "15", "wav2vec 2.0 (frozen features)", {"mAP": 0.31}, 1,
        num_parameters=317 * M),
    _ev("2811", "261", "22", "SepFormer", {"SI-SDRi": 22.3}, 1, num_parameters=26 * M),
    _ev("2811", "261", "22", "SepFormer + DM", {"SI-SDRi": 22.4}, None,
        num_parameters=26 * M, uses_additional_data=True),
    # OCR family.
    _ev("91050", "17", "30", "Sparse Reader", {"Accuracy": 97.8}, 1, num_parameters=48 * M),
    _ev("91050", "17", "30", "Reader 2", {"Accuracy": 96.1}, 2, num_parameters=22 * M),
    _ev("91050", "19", "31", "Sparse Reader (HTR)", {"CER": 3.1}, 1, num_parameters=48 * M),
    _ev("91050", "18", "32", "Sparse Reader (det)", {"F-Measure": 88.4}, 1,
        num_parameters=51 * M),
    # Language modelling and QA; MMLU has the same model at 5-shot and 0 shot.
    _ev("1203", "12", "16", "Linear Transformer", {"Test perplexity": 25.6}, 2,
        num_parameters=247 * M),
    _ev("2290", "12", "16", "GPT-3 (zero-shot)", {"Test perplexity": 20.5}, 1,
        num_parameters=175 * B, is_open=False, methodology="zero-shot"),
    _ev("6230", "13", "19", "DeepSeek-R1", {"Average (%)": 90.8}, 1,
        num_parameters=671 * B, methodology="0-shot, chain of thought"),
    _ev("5012", "13", "19", "Llama 2 70B", {"Average (%)": 68.9}, 2,
        num_parameters=70 * B, methodology="5-shot"),
    _ev("5012", "13", "19", "Llama 2 70B", {"Average (%)": 62.0}, 4,
        num_parameters=70 * B, methodology="0 shot"),
    _ev("4730", "13", "19", "LLaMA 65B", {"Average (%)": 63.4}, 3,
        num_parameters=65 * B, methodology="5-shot"),
    _ev("2290", "13", "19", "GPT-3 175B", {"Average (%)": 43.9}, 5,
        num_parameters=175 * B, is_open=False, methodology="Test split, 5shot; Table 3"),
    _ev("6230", "32", "20", "DeepSeek-R1", {"Accuracy": 97.3}, 1, num_parameters=671 * B),
    _ev("91001", "32", "20", "TTC-1.5B (best-of-64)", {"Accuracy": 71.0}, 2,
        num_parameters=1_500 * M),
    _ev("91002", "32", "20", "TTC-1.5B", {"Accuracy": 65.2}, 3, num_parameters=1_500 * M),
    # Gait, generation, small-image classification.
    _ev("86122", "20", "21", "BiggerGait", {"Rank-1": 93.1}, 1, num_parameters=304 * M),
    _ev("86122", "20", "25", "BiggerGait", {"Rank-1": 75.4}, 1, num_parameters=304 * M),
    _ev("2301", "25", "24", "DDPM", {"FID": 3.17, "Inception score": 9.46}, 1,
        num_parameters=36 * M),
    _ev("1495", "25", "24", "EBM (ensemble)", {"FID": 38.2, "Inception score": 6.78}, 2),
    _ev("2432", "10", "18", "ViT-H/14", {"Percentage correct": 99.5}, 1,
        num_parameters=632 * M),
    _ev("310", "10", "18", "ResNet-110", {"Percentage correct": 93.57}, 2,
        num_parameters=1_700_000),
)
# fmt: on


# ImageNet rows from real papers of the fixture set.
IMAGENET_NAMED: tuple[tuple[str, str, float, str | None, float, str], ...] = (
    # (paper, model, top-1, top-5, params in millions, methodology)
    ("2432", "ViT-H/14", 88.55, "98.6%", 632.0, "Fine-tuned at 518px"),
    ("3650", "MAE (ViT-H, 448)", 87.8, None, 632.0, "Fine-tuned"),
    ("2432", "ViT-L/16", 87.76, "98.3%", 307.0, "Fine-tuned"),
    ("310", "ResNet-152", 78.57, "94.29", 60.2, "Single model, 10-crop"),
    ("3120", "CLIP (ViT-L/14@336)", 76.2, None, 428.0, "zero-shot"),
    ("310", "ResNet-50", 75.3, "92.2", 25.6, "Single model"),
    ("3120", "CLIP (ViT-L/14, linear probe)", 64.3, None, 428.0, "5-shot linear probe"),
    ("1690", "MoCo (ResNet-50, linear)", 60.6, None, 25.6, "Linear probe"),
)

IMAGENET_GENERATED_ROWS = 232
_SYNTH_PAPERS = ("310", "2432", "3650", "1690", "3120", "612", "91020")


def imagenet_rows() -> list[dict[str, Any]]:
    """The ImageNet-1k leaderboard: named rows plus generated SynthNet rows, ranked.

    Deterministic: every value is a function of the row index. Ranks follow Top-1
    descending; every 23rd row is left unranked (`best_rank` null).
    """
    specs: list[tuple[str, str, float, Any, Any, str, int | None]] = []
    for paper, model, top1, top5, params_m, methodology in IMAGENET_NAMED:
        specs.append((paper, model, top1, top5, params_m, methodology, int(params_m * M)))
    for index in range(IMAGENET_GENERATED_ROWS):
        top1 = round(87.4 - index * 0.1, 2)
        top5: Any = round(min(99.0, top1 + 10.3), 1)
        if index % 3 == 0:
            top5 = f"{top5}%"  # percent string, parsed by stripping the sign
        params_m: Any = round(5 + (index * 7) % 400 + 0.5, 1)
        count: int | None = int(params_m * M)
        if index % 11 == 0:
            params_m = f"{1_000 + index * 3:,}"  # comma-grouped string such as "1,033"
            count = (1_000 + index * 3) * M
        if index % 5 == 4:
            count = None  # parameter count unknown to the catalog
        methodology = ("Fine-tuned", "5-shot", "Linear probe", "zero-shot")[index % 4]
        model = f"SynthNet-{index + 1:03d}"
        paper = _SYNTH_PAPERS[index % len(_SYNTH_PAPERS)]
        specs.append((paper, model, top1, top5, params_m, methodology, count))
    specs.sort(key=lambda spec: -spec[2])
    rows = []
    for position, (paper, model, top1, top5, params_m, methodology, count) in enumerate(specs):
        metrics: dict[str, Any] = {"Top-1 Accuracy": top1}
        if top5 is not None:
            metrics["Top-5 Accuracy"] = top5
        metrics["Params"] = params_m
        open_cycle = (True, True, False, None)[position % 4]
        rows.append(
            _ev(
                paper,
                "10",
                "72",
                model,
                metrics,
                None if position % 23 == 22 else position + 1,
                num_parameters=count,
                is_open=open_cycle,
                methodology=methodology,
                harness="timm" if position % 2 == 0 else None,
                split="val",
                best_metric="Top-1 Accuracy",
            )
        )
    return rows


def evaluation_specs() -> list[dict[str, Any]]:
    """Every evaluation row spec, in a stable order (the order sets their IDs)."""
    return [*HAND_WRITTEN, *imagenet_rows()]
