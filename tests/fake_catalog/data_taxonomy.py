"""Fixture taxonomy of the fake catalog: areas, tasks, methods, conferences,
organizations and frameworks (catalog-api.md §2.12-§2.26, appendix B).

IDs and names follow appendix B where it gives them (areas 1/3/6, tasks 10, 2,
17, 18, 19, 259, methods 2 and 20, conference cvpr-2026 = 7, organization
nvidia = 1, frameworks vllm = 11 and llama-cpp = 9). Counts such as a task's
`paper_count` are not stored here: the catalog computes them from the papers so
listings and detail pages agree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Task:
    id: str
    slug: str
    name: str
    area_id: str | None
    parent_id: str | None = None
    description: str = ""
    research_trends: tuple[str, ...] = ()
    visible: bool = True
    created_at: str = "2019-01-01T00:00:00Z"


AREAS: tuple[tuple[str, str], ...] = (
    ("1", "Vision"),
    ("2", "Natural Language Processing"),
    ("3", "General"),
    ("4", "Computer Code"),
    ("5", "Robotics"),
    ("6", "Audio"),
)

# fmt: off
TASKS: tuple[Task, ...] = tuple(Task(*row) for row in (
    # id, slug, name, area, parent, description, research trends[, visible, created_at]
    ("10", "image-classification", "Image Classification", "1", None,
     "Assigning a label from a fixed set of categories to a whole image.",
     ("Vision transformers", "Self-supervised pretraining"), True, "2018-06-01T00:00:00Z"),
    ("21", "fine-grained-image-classification", "Fine-Grained Image Classification", "1", "10",
     "Telling apart visually similar sub-categories such as bird species.", (),
     True, "2019-03-01T00:00:00Z"),
    ("11", "object-detection", "Object Detection", "1", None,
     "Locating and classifying every object instance with a bounding box.",
     ("Open-vocabulary detection", "End-to-end set prediction"), True, "2018-06-01T00:00:00Z"),
    ("23", "real-time-object-detection", "Real-Time Object Detection", "1", "11",
     "Object detection under a frame-rate constraint.", (), True, "2019-05-01T00:00:00Z"),
    ("22", "instance-segmentation", "Instance Segmentation", "1", None,
     "Predicting a pixel mask for every object instance.", (), True, "2018-07-01T00:00:00Z"),
    ("24", "video-object-segmentation", "Video Object Segmentation", "1", None,
     "Segmenting and tracking objects through a video.", (), True, "2020-02-01T00:00:00Z"),
    ("2", "ocr", "OCR", "1", None,
     "Optical character recognition: turning images of text into text.",
     ("End-to-end text spotting",), True, "2018-06-01T00:00:00Z"),
    ("17", "scene-text-recognition", "Scene Text Recognition", "1", "2",
     "Recognizing text in natural images.", ("Vision-language pretraining",),
     True, "2018-09-01T00:00:00Z"),
    ("18", "text-detection", "Text Detection", "1", "2",
     "Locating regions of text in images.", (), True, "2018-09-01T00:00:00Z"),
    ("19", "handwritten-text", "Handwritten Text Recognition", "1", "17",
     "Transcribing handwriting from scanned pages.", (), True, "2019-01-15T00:00:00Z"),
    ("20", "gait-recognition", "Gait Recognition", "1", None,
     "Identifying people from the way they walk.", (), True, "2019-08-01T00:00:00Z"),
    ("25", "image-generation", "Image Generation", "1", None,
     "Synthesising new images from noise, text or other conditions.", ("Diffusion models",),
     True, "2018-06-01T00:00:00Z"),
    ("6", "machine-translation", "Machine Translation", "2", None,
     "Translating text from one natural language into another.", (),
     True, "2018-06-01T00:00:00Z"),
    ("12", "language-modelling", "Language Modelling", "2", None,
     "Predicting the next token of text.", ("Scaling laws", "Long context"),
     True, "2018-06-01T00:00:00Z"),
    ("13", "question-answering", "Question Answering", "2", None,
     "Answering natural-language questions, with or without a context.", (),
     True, "2018-06-01T00:00:00Z"),
    ("32", "mathematical-reasoning", "Mathematical Reasoning", "2", None,
     "Solving mathematical problems stated in natural language.", (),
     True, "2023-01-10T00:00:00Z"),
    ("27", "representation-learning", "Representation Learning", "3", None,
     "Learning features that transfer to downstream tasks.", (), True, "2018-06-01T00:00:00Z"),
    ("28", "efficient-inference", "Efficient Inference", "3", None,
     "Reducing the latency, memory and cost of running trained models.", (),
     True, "2021-04-01T00:00:00Z"),
    ("29", "anomaly-detection", "Anomaly Detection", "3", None,
     "Finding observations that deviate from the bulk of the data.", (),
     True, "2018-10-01T00:00:00Z"),
    # Hidden: present in the catalog but not listed with visible_only=true.
    ("31", "knot-invariants", "Knot Invariants", "3", None,
     "Invariants that tell knots apart.", (), False, "2020-01-01T00:00:00Z"),
    ("3", "software-engineering", "Software Engineering", "4", None,
     "Resolving real issues in software repositories.", (), True, "2023-10-15T00:00:00Z"),
    ("8", "code-generation", "Code Generation", "4", None,
     "Writing program code from a natural-language specification.", (),
     True, "2021-07-01T00:00:00Z"),
    ("259", "audio-classification", "Audio Classification", "6", None,
     "Assigning labels to audio clips.", (), True, "2019-02-01T00:00:00Z"),
    ("260", "speech-recognition", "Speech Recognition", "6", None,
     "Transcribing spoken language into text.", (), True, "2018-06-01T00:00:00Z"),
    ("261", "speech-separation", "Speech Separation", "6", None,
     "Separating overlapping speakers in a recording.", (), True, "2019-04-01T00:00:00Z"),
))
# fmt: on


# GitHub repositories recommended on task pages (§2.17), by task ID.
RECOMMENDED_FRAMEWORKS: dict[str, tuple[dict[str, object], ...]] = {
    "10": (
        {
            "id": "44",
            "url": "https://github.com/huggingface/pytorch-image-models",
            "owner": "huggingface",
            "name": "pytorch-image-models",
            "num_stars": 33000,
        },
    ),
    "17": (
        {
            "id": "45",
            "url": "https://github.com/huggingface/transformers",
            "owner": "huggingface",
            "name": "transformers",
            "num_stars": 150000,
        },
        {
            "id": "46",
            "url": "https://github.com/open-mmlab/mmocr",
            "owner": "open-mmlab",
            "name": "mmocr",
            "num_stars": 4400,
        },
    ),
    "11": (
        {
            "id": "47",
            "url": "https://github.com/facebookresearch/detectron2",
            "owner": "facebookresearch",
            "name": "detectron2",
            "num_stars": 31000,
        },
    ),
}


@dataclass(frozen=True)
class Method:
    id: str
    slug: str
    name: str
    full_name: str
    area_id: str
    introduced_year: int | None
    description: str
    source_paper_id: str | None = None
    created_at: str = "2019-01-01T00:00:00Z"


# fmt: off
METHODS: tuple[Method, ...] = tuple(Method(*row) for row in (
    # id, slug, name, full name, area, introduced, description, source paper
    ("2", "transformer", "Transformer", "Transformer", "3", 2017,
     "Attention-only architecture.", "755"),
    ("3", "multi-head-attention", "Multi-Head Attention", "Multi-Head Attention", "3", 2017,
     "Several attention heads over learned projections, concatenated.", "755"),
    ("4", "adam", "Adam", "Adaptive Moment Estimation", "3", 2014,
     "Stochastic optimiser with per-parameter adaptive step sizes.", "150"),
    ("5", "resnet", "ResNet", "Residual Network", "1", 2015,
     "Convolutional network built from residual blocks.", "310"),
    ("6", "vision-transformer", "Vision Transformer", "Vision Transformer", "1", 2020,
     "Transformer encoder over image patches.", "2432"),
    ("7", "bert", "BERT", "Bidirectional Encoder Representations from Transformers", "2", 2018,
     "Masked-language-model pretraining of a transformer encoder.", "1001"),
    ("8", "faster-r-cnn", "Faster R-CNN", "Faster R-CNN", "1", 2015,
     "Two-stage detector with a region proposal network.", "288"),
    ("9", "yolo", "YOLO", "You Only Look Once", "1", 2015,
     "Single-stage detector predicting boxes on a grid.", "291"),
    ("10", "gan", "GAN", "Generative Adversarial Network", "3", 2014,
     "Generator and discriminator trained in a minimax game.", "120"),
    ("11", "ddpm", "DDPM", "Denoising Diffusion Probabilistic Model", "1", 2020,
     "Generative model that reverses a gradual noising process.", "2301"),
    ("12", "clip", "CLIP", "Contrastive Language-Image Pre-training", "1", 2021,
     "Image and text encoders trained contrastively on paired data.", "3120"),
    ("13", "linear-attention", "Linear Attention", "Linear Attention", "3", 2020,
     "Kernel feature maps make attention linear in sequence length.", "1203"),
    ("14", "layer-normalization", "Layer Normalization", "Layer Normalization", "3", 2016,
     "Normalises activations across the features of each example.", None),
    ("15", "batch-normalization", "Batch Normalization", "Batch Normalization", "3", 2015,
     "Normalises activations across the batch.", None),
    ("16", "paged-attention", "PagedAttention", "PagedAttention", "3", 2023,
     "Key-value cache stored in fixed-size blocks.", "4921"),
    ("17", "mask-r-cnn", "Mask R-CNN", "Mask R-CNN", "1", 2017,
     "Two-stage detector with a mask branch.", "612"),
    ("18", "moco", "MoCo", "Momentum Contrast", "1", 2019,
     "Contrastive learning with a queue and a momentum encoder.", "1690"),
    ("19", "mae", "MAE", "Masked Autoencoder", "1", 2021,
     "Reconstructs masked image patches.", "3650"),
    ("20", "wav2vec-2", "wav2vec 2.0", "wav2vec 2.0", "6", 2020,
     "Self-supervised speech representations from masked contrastive learning.", "2305"),
    ("21", "rlhf", "RLHF", "Reinforcement Learning from Human Feedback", "3", 2017,
     "Fine-tuning with a reward model trained on human preferences.", None),
    ("22", "dropout", "Dropout", "Dropout", "3", 2014,
     "Randomly zeroes activations during training.", None),
    ("23", "sepformer", "SepFormer", "Separation Transformer", "6", 2020,
     "Transformer-based speech separator.", "2811"),
    ("24", "grpo", "GRPO", "Group Relative Policy Optimization", "3", 2024,
     "Policy optimisation with group-normalised rewards and no critic.", None),
    ("25", "rope", "RoPE", "Rotary Position Embedding", "2", 2021,
     "Encodes positions by rotating query and key vectors.", None),
    ("26", "energy-based-model", "Energy-Based Model", "Energy-Based Model", "3", None,
     "Models an unnormalised density through an energy function.", "1495"),
))
# fmt: on


@dataclass(frozen=True)
class Conference:
    id: str
    slug: str
    name: str
    year: int
    location: str
    start_date: str
    end_date: str
    venue: str
    tier: str = "a*"
    url: str = ""


# fmt: off
CONFERENCES: tuple[Conference, ...] = tuple(Conference(*row) for row in (
    # id, slug, name, year, location, start, end, venue[, tier]
    ("1", "neurips-2017", "NeurIPS 2017", 2017, "Long Beach, USA",
     "2017-12-04", "2017-12-09", "Long Beach Convention Center"),
    ("2", "cvpr-2016", "CVPR 2016", 2016, "Las Vegas, USA",
     "2016-06-26", "2016-07-01", "Caesars Palace"),
    ("3", "iccv-2017", "ICCV 2017", 2017, "Venice, Italy",
     "2017-10-22", "2017-10-29", "Venice Convention Centre"),
    ("4", "iclr-2015", "ICLR 2015", 2015, "San Diego, USA",
     "2015-05-07", "2015-05-09", "Hilton San Diego"),
    ("5", "cvpr-2025", "CVPR 2025", 2025, "Nashville, USA",
     "2025-06-11", "2025-06-15", "Music City Center"),
    ("6", "iclr-2025", "ICLR 2025", 2025, "Singapore",
     "2025-04-24", "2025-04-28", "Singapore EXPO"),
    ("7", "cvpr-2026", "CVPR 2026", 2026, "Denver, USA",
     "2026-06-03", "2026-06-07", "Colorado Convention Center"),
    ("8", "neurips-2025", "NeurIPS 2025", 2025, "San Diego, USA",
     "2025-12-02", "2025-12-07", "San Diego Convention Center"),
    ("9", "iclr-2021", "ICLR 2021", 2021, "Virtual", "2021-05-03", "2021-05-07", "Online"),
    ("10", "neurips-2020", "NeurIPS 2020", 2020, "Virtual", "2020-12-06", "2020-12-12", "Online"),
    ("11", "icml-2020", "ICML 2020", 2020, "Virtual", "2020-07-12", "2020-07-18", "Online"),
    ("12", "neurips-2026", "NeurIPS 2026", 2026, "Sydney, Australia",
     "2026-12-06", "2026-12-12", "International Convention Centre"),
    ("13", "neurips-2014", "NeurIPS 2014", 2014, "Montreal, Canada",
     "2014-12-08", "2014-12-13", "Palais des congrès"),
    ("14", "naacl-2019", "NAACL 2019", 2019, "Minneapolis, USA",
     "2019-06-02", "2019-06-07", "Hyatt Regency", "a"),
    ("15", "icml-2021", "ICML 2021", 2021, "Virtual", "2021-07-18", "2021-07-24", "Online"),
    ("16", "cvpr-2022", "CVPR 2022", 2022, "New Orleans, USA",
     "2022-06-19", "2022-06-24", "Ernest N. Morial Convention Center"),
    ("17", "cvpr-2020", "CVPR 2020", 2020, "Virtual", "2020-06-14", "2020-06-19", "Online"),
    ("18", "sosp-2023", "SOSP 2023", 2023, "Koblenz, Germany",
     "2023-10-23", "2023-10-26", "Rhein-Mosel-Halle", "a"),
    ("19", "iclr-2024", "ICLR 2024", 2024, "Vienna, Austria",
     "2024-05-07", "2024-05-11", "Messe Wien"),
    ("20", "acl-2020", "ACL 2020", 2020, "Virtual", "2020-07-05", "2020-07-10", "Online"),
    ("21", "icassp-2021", "ICASSP 2021", 2021, "Toronto, Canada",
     "2021-06-06", "2021-06-11", "Online", "b"),
    ("22", "neurips-2015", "NeurIPS 2015", 2015, "Montreal, Canada",
     "2015-12-07", "2015-12-12", "Palais des congrès"),
    ("23", "neurips-2019", "NeurIPS 2019", 2019, "Vancouver, Canada",
     "2019-12-08", "2019-12-14", "Vancouver Convention Centre"),
))
# fmt: on


@dataclass(frozen=True)
class Organization:
    id: str
    slug: str
    name: str
    is_featured: bool
    trending_rank: int | None
    description: str
    website_url: str
    github_url: str | None = None
    hf_url: str | None = None


# fmt: off
ORGANIZATIONS: tuple[Organization, ...] = tuple(Organization(*row) for row in (
    # id, slug, name, featured, trending rank, description, website, GitHub, Hugging Face
    ("1", "nvidia", "NVIDIA", True, 1, "Accelerated computing and AI research.",
     "https://www.nvidia.com", "https://github.com/NVlabs", "https://huggingface.co/nvidia"),
    ("2", "google", "Google", True, 2, "Research across machine learning.",
     "https://research.google", "https://github.com/google-research",
     "https://huggingface.co/google"),
    ("3", "meta", "Meta", True, 3, "Fundamental AI research.",
     "https://ai.meta.com", "https://github.com/facebookresearch",
     "https://huggingface.co/facebook"),
    ("4", "openai", "OpenAI", True, 4, "AI research and deployment.",
     "https://openai.com", "https://github.com/openai", "https://huggingface.co/openai"),
    ("5", "microsoft", "Microsoft", True, None, "Microsoft Research.",
     "https://www.microsoft.com/research", "https://github.com/microsoft",
     "https://huggingface.co/microsoft"),
    ("6", "uc-berkeley", "UC Berkeley", False, None, "University of California, Berkeley.",
     "https://www.berkeley.edu", None, None),
    ("7", "mit", "MIT", False, 6, "Massachusetts Institute of Technology.",
     "https://www.mit.edu", None, None),
    ("8", "deepseek", "DeepSeek", True, 5, "Open large language models.",
     "https://www.deepseek.com", "https://github.com/deepseek-ai",
     "https://huggingface.co/deepseek-ai"),
    ("9", "qwen", "Qwen", False, None, "Open model family.",
     "https://qwenlm.github.io", "https://github.com/QwenLM", "https://huggingface.co/Qwen"),
    ("10", "princeton", "Princeton University", False, None, "Princeton University.",
     "https://www.princeton.edu", None, None),
    ("11", "idiap", "Idiap Research Institute", False, None, "Idiap Research Institute.",
     "https://www.idiap.ch", None, None),
    ("12", "mila", "Mila", False, None, "Quebec AI institute.", "https://mila.quebec", None, None),
    ("13", "university-of-washington", "University of Washington", False, None,
     "University of Washington.", "https://www.washington.edu", None, None),
))
# fmt: on


@dataclass(frozen=True)
class Framework:
    id: str
    slug: str
    name: str
    description: str
    platforms: tuple[str, ...]
    when_to_use: str
    github_url: str
    docs_url: str
    introducing_paper_arxiv_id: str | None = None
    organization_name: str | None = None


# fmt: off
def _fw(*row: Any) -> Framework:
    return Framework(*row)


# domain (slug, name) > category (slug, name) > frameworks; catalog-api.md §2.26.
# Framework row: id, slug, name, description, platforms, when to use, GitHub, docs,
# introducing arXiv ID, organization.
FRAMEWORK_TREE: tuple[tuple[str, str, tuple[tuple[str, str, tuple[Framework, ...]], ...]], ...] = (
    ("llm", "Large Language Models", (
        ("inference", "Inference & Serving", (
            _fw("11", "vllm", "vLLM", "High-throughput serving.", ("gpu",),
                "Serving many concurrent requests on GPUs.",
                "https://github.com/vllm-project/vllm", "https://docs.vllm.ai",
                "2309.06180", "UC Berkeley"),
            _fw("9", "llama-cpp", "llama.cpp", "Portable inference.", ("cpu", "apple"),
                "Running quantised models on laptops.",
                "https://github.com/ggml-org/llama.cpp",
                "https://github.com/ggml-org/llama.cpp#readme"),
            _fw("12", "sglang", "SGLang", "Structured generation runtime.", ("gpu",),
                "Programs with many LLM calls and shared prefixes.",
                "https://github.com/sgl-project/sglang", "https://docs.sglang.ai"),
        )),
        ("training", "Training & Fine-tuning", (
            _fw("13", "deepspeed", "DeepSpeed", "Distributed training library.", ("gpu",),
                "Training models too large for one device.",
                "https://github.com/deepspeedai/DeepSpeed", "https://www.deepspeed.ai",
                None, "Microsoft"),
        )),
    )),
    ("vision", "Computer Vision", (
        ("detection", "Detection & Segmentation", (
            _fw("21", "detectron2", "Detectron2", "Detection research platform.",
                ("gpu", "cpu"), "Research on detection and segmentation.",
                "https://github.com/facebookresearch/detectron2",
                "https://detectron2.readthedocs.io", None, "Meta"),
            _fw("22", "ultralytics", "Ultralytics", "Real-time detectors.",
                ("gpu", "cpu", "apple"), "Deploying fast detectors.",
                "https://github.com/ultralytics/ultralytics", "https://docs.ultralytics.com"),
        )),
        ("classification", "Image Models", (
            _fw("23", "timm", "timm", "Image model zoo and training scripts.", ("gpu", "cpu"),
                "Pretrained image backbones.",
                "https://github.com/huggingface/pytorch-image-models",
                "https://huggingface.co/docs/timm", None, "Hugging Face"),
        )),
    )),
    ("speech", "Speech & Audio", (
        ("toolkits", "Toolkits", (
            _fw("31", "speechbrain", "SpeechBrain", "Speech processing toolkit.",
                ("gpu", "cpu"), "Speech recognition and separation recipes.",
                "https://github.com/speechbrain/speechbrain",
                "https://speechbrain.readthedocs.io", "2010.13154"),
            _fw("32", "fairseq", "fairseq", "Sequence modelling toolkit.", ("gpu",),
                "Research on sequence models.",
                "https://github.com/facebookresearch/fairseq",
                "https://fairseq.readthedocs.io", None, "Meta"),
        )),
    )),
)
# fmt: on
