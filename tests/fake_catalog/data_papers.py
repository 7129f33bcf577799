"""Fixture papers and authors of the fake catalog (catalog-api.md §2.0, appendix B).

Real arXiv IDs and real titles are used for the well-known papers; everything
else about them (catalog IDs other than those named in the spec, abstracts,
counts, links, Markdown bodies) is invented for the tests. A few papers are
entirely invented and marked so: the legacy-ID paper's title, the external
paper, the two papers sharing one title, the "Alex Kim" papers and a handful of
recent papers that give the trending and recent listings something to show.

The catalog's "today" is fixed (`CATALOG_TODAY`) so that age-based filters such
as `papers/trending?max_age_days=` give the same answer on every day the suite runs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

CATALOG_TODAY = date(2026, 11, 1)


@dataclass(frozen=True)
class Author:
    id: str
    name: str
    hf_username: str | None = None

    def echo(self) -> dict[str, str | None]:
        """The `{id, name, hf_username}` form used in `applied_filters.authors`."""
        return {"id": self.id, "name": self.name, "hf_username": self.hf_username}


# Authors the tests address directly. Paper author lists refer to people by these
# keys; any other key is a plain name and gets an ID assigned in order of appearance.
NAMED_AUTHORS: dict[str, Author] = {
    "Kaiming He": Author("264", "Kaiming He"),
    "Yilun Du": Author("26405", "Yilun Du", "yilundu"),
    "alex-kim-41": Author("41", "Alex Kim", "alex-one"),
    "alex-kim-72": Author("72", "Alex Kim"),
    "Ashish Vaswani": Author("1101", "Ashish Vaswani", "ashishvaswani"),
    "Ross Girshick": Author("2716", "Ross Girshick"),
}
FIRST_GENERATED_AUTHOR_ID = 100_001


@dataclass(frozen=True)
class Paper:
    """One catalog paper; `row()`-style JSON is produced by the routes module.

    `arxiv_id` is stored as the catalog holds it (it may carry a version, as
    BiggerGait's `2505.18132v1` does). `tasks`, `methods`, `organizations` and
    `frameworks` hold IDs into the taxonomy tables; `conference` a conference slug.
    `added` is the catalog import date (papers/recent); `velocity` the repository
    star velocity used by papers/trending and the `trending` ordering.
    `markdown` is False for the paper that has no stored Markdown.
    """

    id: str
    arxiv_id: str | None
    title: str
    authors: tuple[str, ...]
    published: str
    abstract: str
    points: tuple[str, ...]
    citation_count: int = 0
    repositories: tuple[tuple[str, bool], ...] = ()
    project_pages: tuple[str, ...] = ()
    hf_models: tuple[str, ...] = ()
    hf_datasets: tuple[str, ...] = ()
    hf_spaces: tuple[str, ...] = ()
    tasks: tuple[str, ...] = ()
    methods: tuple[str, ...] = ()
    organizations: tuple[str, ...] = ()
    frameworks: tuple[str, ...] = ()
    conference: str | None = None
    added: str = ""
    velocity: float = 0.0
    markdown: bool = True
    markdown_extra: str = ""
    source: str = "arxiv"  # the arXiv-backed value is unknown (§2.0); "external" is known
    url_abs: str | None = None

    @property
    def bare_arxiv_id(self) -> str | None:
        """The arXiv ID without a trailing version, the key of the read route (§3.1)."""
        return strip_version(self.arxiv_id) if self.arxiv_id else None

    @property
    def route_identifier(self) -> str:
        return self.bare_arxiv_id or self.id

    @property
    def slug(self) -> str:
        return slugify(self.title)

    @property
    def has_official_implementation(self) -> bool:
        return any(official for _, official in self.repositories)

    @property
    def added_date(self) -> str:
        return self.added or self.published


_VERSION = re.compile(r"v\d+$", re.IGNORECASE)


def strip_version(reference: str) -> str:
    return _VERSION.sub("", reference)


def slugify(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", " ".join(title.split()).casefold()).strip("-")


def _gh(path: str, official: bool = True) -> tuple[str, bool]:
    return (f"https://github.com/{path}", official)


PAPERS: tuple[Paper, ...] = (
    Paper(
        id="755",
        arxiv_id="1706.03762",
        title="Attention Is All You Need",
        authors=(
            "Ashish Vaswani",
            "Noam Shazeer",
            "Niki Parmar",
            "Jakob Uszkoreit",
            "Llion Jones",
            "Aidan N. Gomez",
            "Łukasz Kaiser",
            "Illia Polosukhin",
        ),
        published="2017-06-12",
        abstract=(
            "Sequence transduction has long relied on recurrence or convolution to move "
            "information between positions. This paper proposes an encoder-decoder built "
            "from attention layers alone, which trains in parallel across positions and "
            "sets a new state of the art on two translation benchmarks at a fraction of "
            "the training cost."
        ),
        points=(
            "Scaled dot-product attention: softmax(QKᵀ/√dₖ)·V.",
            "Multi-head attention lets each layer attend to several subspaces at once.",
            "Sinusoidal position encodings replace recurrence for word order.",
        ),
        citation_count=190373,
        repositories=(
            _gh("tensorflow/tensor2tensor"),
            _gh("harvardnlp/annotated-transformer", False),
            _gh("jadore801120/attention-is-all-you-need-pytorch", False),
        ),
        hf_models=("https://huggingface.co/google-t5/t5-base",),
        tasks=("6", "12"),
        methods=("2", "3", "14", "22"),
        organizations=("2",),
        conference="neurips-2017",
        added="2019-05-02",
        velocity=4.0,
        url_abs="https://arxiv.org/abs/1706.03762v7",
    ),
    Paper(
        id="1203",
        arxiv_id="2006.16236",
        title="Transformers Are RNNs",
        authors=("Angelos Katharopoulos", "Apoorv Vyas", "Nikolaos Pappas", "François Fleuret"),
        published="2020-06-29",
        abstract=(
            "Softmax attention costs time and memory quadratic in sequence length. By "
            "writing attention as a kernel feature map product, the authors obtain a "
            "linear-time formulation and show that autoregressive transformers then run "
            "as recurrent networks during generation."
        ),
        points=(
            "Kernelised attention: φ(Q)(φ(K)ᵀV) is computed in O(N).",
            "Causal masking becomes a running sum, i.e. an RNN state.",
            "Generation is orders of magnitude faster on long sequences.",
        ),
        citation_count=1904,
        repositories=(_gh("idiap/fast-transformers"),),
        tasks=("12", "25"),
        methods=("13", "2"),
        organizations=("11",),
        conference="icml-2020",
        added="2020-07-01",
        velocity=0.4,
    ),
    Paper(
        id="5012",
        arxiv_id="2307.09288",
        title="Llama 2: Open Foundation and Fine-Tuned Chat Models",
        authors=("Hugo Touvron", "Louis Martin", "Kevin Stone", "Peter Albert", "Amjad Almahairi"),
        published="2023-07-18",
        abstract=(
            "A family of pretrained and chat-tuned language models from 7 to 70 billion "
            "parameters is released with a permissive licence. The report details the "
            "pretraining mix, supervised fine-tuning and reinforcement learning from "
            "human feedback, and an extensive safety evaluation."
        ),
        points=(
            "Two trillion pretraining tokens; grouped-query attention in the largest model.",
            "Iterative RLHF with separate helpfulness and safety reward models.",
            "Ghost attention keeps multi-turn instructions consistent.",
        ),
        citation_count=14210,
        repositories=(_gh("meta-llama/llama"),),
        hf_models=(
            "https://huggingface.co/meta-llama/Llama-2-7b-hf",
            "https://huggingface.co/meta-llama/Llama-2-70b-chat-hf",
        ),
        tasks=("12", "13"),
        methods=("2", "25", "21"),
        organizations=("3",),
        frameworks=("11", "9"),
        added="2023-07-19",
        velocity=2.5,
    ),
    Paper(
        id="4730",
        arxiv_id="2302.13971",
        title="LLaMA: Open and Efficient Foundation Language Models",
        authors=("Hugo Touvron", "Thibaut Lavril", "Gautier Izacard", "Xavier Martinet"),
        published="2023-02-27",
        abstract=(
            "Foundation language models from 7 to 65 billion parameters are trained only "
            "on publicly available data. The smaller models match much larger "
            "proprietary ones on common benchmarks, showing that data and training length "
            "matter as much as parameter count."
        ),
        points=(
            "Training on public data only, up to 1.4 trillion tokens.",
            "Pre-normalisation, SwiGLU activations and rotary embeddings.",
            "The 13B model outperforms a 175B baseline on most benchmarks.",
        ),
        citation_count=12877,
        repositories=(_gh("meta-llama/llama"),),
        tasks=("12",),
        methods=("2", "25"),
        organizations=("3",),
        frameworks=("9",),
        added="2023-02-28",
        velocity=1.1,
    ),
    Paper(
        id="86122",
        arxiv_id="2505.18132v1",
        title=(
            "BiggerGait: Unlocking Gait Recognition with Layer-wise Representations "
            "from Large Vision Models"
        ),
        authors=("Dingqiang Ye", "Chao Fan", "Zhanbo Huang", "Chengwen Luo", "Shiqi Yu"),
        published="2025-05-23",
        abstract=(
            "Large vision models are rarely used for gait recognition because their final "
            "layers discard the body-shape cues gait needs. Reading out intermediate "
            "layers instead gives a simple, strong baseline that transfers across "
            "datasets without task-specific architecture."
        ),
        points=(
            "Intermediate layers of large vision models carry complementary gait cues.",
            "A lightweight layer-wise head aggregates them.",
            "Strong cross-domain results on indoor and outdoor gait benchmarks.",
        ),
        citation_count=3,
        repositories=(_gh("ShiqiYu/OpenGait"),),
        tasks=("20",),
        methods=("6",),
        added="2025-05-26",
        velocity=0.9,
        url_abs="https://arxiv.org/abs/2505.18132v1",
    ),
    Paper(
        id="2811",
        arxiv_id="2010.13154",
        title="Attention is All You Need in Speech Separation",
        authors=(
            "Cem Subakan",
            "Mirco Ravanelli",
            "Samuele Cornell",
            "Mirko Bronzi",
            "Jianyuan Zhong",
        ),
        published="2020-10-25",
        abstract=(
            "Recurrent networks have dominated single-channel speech separation. A "
            "recurrence-free separator built on multi-scale transformer blocks reaches "
            "state-of-the-art quality on standard mixtures while allowing parallel "
            "processing."
        ),
        points=(
            "Dual-path transformer blocks model short- and long-term dependencies.",
            "No recurrence, so training and inference parallelise well.",
            "Best reported SI-SNR improvement on the two-speaker mixture benchmark.",
        ),
        citation_count=580,
        repositories=(_gh("speechbrain/speechbrain"),),
        tasks=("261",),
        methods=("23", "2"),
        frameworks=("31",),
        conference="icassp-2021",
        added="2020-10-27",
        velocity=0.3,
    ),
    Paper(
        id="310",
        arxiv_id="1512.03385",
        title="Deep Residual Learning for Image Recognition",
        authors=("Kaiming He", "Xiangyu Zhang", "Shaoqing Ren", "Jian Sun"),
        published="2015-12-10",
        abstract=(
            "Very deep networks are hard to optimise because training error grows with "
            "depth. Letting layers learn residual functions with reference to their "
            "inputs makes networks of more than a hundred layers trainable and improves "
            "accuracy as depth increases."
        ),
        points=(
            "Identity shortcuts: y = F(x) + x.",
            "Bottleneck blocks keep very deep models affordable.",
            "Won the classification and detection tracks of a major 2015 challenge.",
        ),
        citation_count=245001,
        repositories=(_gh("KaimingHe/deep-residual-networks"), _gh("pytorch/vision", False)),
        tasks=("10", "11"),
        methods=("5", "15"),
        organizations=("5",),
        frameworks=("23",),
        conference="cvpr-2016",
        added="2018-11-20",
        velocity=0.8,
    ),
    Paper(
        id="1001",
        arxiv_id="1810.04805",
        title=("BERT: Pre-training of Deep Bidirectional Transformers for Language Understanding"),
        authors=("Jacob Devlin", "Ming-Wei Chang", "Kenton Lee", "Kristina Toutanova"),
        published="2018-10-11",
        abstract=(
            "A language representation model is pretrained to predict masked words from "
            "both left and right context. Fine-tuning the same network with one extra "
            "output layer reaches strong results across question answering and inference "
            "tasks."
        ),
        points=(
            "Masked language modelling enables deep bidirectional context.",
            "Next-sentence prediction teaches sentence-pair relations.",
            "One pretrained model, minimal task-specific changes.",
        ),
        citation_count=98020,
        repositories=(_gh("google-research/bert"),),
        hf_models=("https://huggingface.co/google-bert/bert-base-uncased",),
        tasks=("13", "12"),
        methods=("7", "2"),
        organizations=("2",),
        conference="naacl-2019",
        added="2019-01-10",
        velocity=0.5,
    ),
    Paper(
        id="2432",
        arxiv_id="2010.11929",
        title="An Image is Worth 16x16 Words: Transformers for Image Recognition at Scale",
        authors=(
            "Alexey Dosovitskiy",
            "Lucas Beyer",
            "Alexander Kolesnikov",
            "Dirk Weissenborn",
            "Xiaohua Zhai",
        ),
        published="2020-10-22",
        abstract=(
            "A standard transformer applied directly to sequences of image patches "
            "classifies images well when pretrained on enough data. With large-scale "
            "pretraining it matches or beats convolutional networks while needing less "
            "compute to train."
        ),
        points=(
            "Images become sequences of 16×16 patch embeddings.",
            "Inductive biases matter less as pretraining data grows.",
            "Transfers well to mid-sized benchmarks.",
        ),
        citation_count=41877,
        repositories=(_gh("google-research/vision_transformer"),),
        hf_models=("https://huggingface.co/google/vit-base-patch16-224",),
        tasks=("10", "21"),
        methods=("6", "2"),
        organizations=("2",),
        frameworks=("23",),
        conference="iclr-2021",
        added="2020-10-23",
        velocity=0.7,
    ),
    Paper(
        id="288",
        arxiv_id="1506.01497",
        title=("Faster R-CNN: Towards Real-Time Object Detection with Region Proposal Networks"),
        authors=("Shaoqing Ren", "Kaiming He", "Ross Girshick", "Jian Sun"),
        published="2015-06-04",
        abstract=(
            "Region proposals were the bottleneck of two-stage detectors. A proposal "
            "network that shares convolutional features with the detector makes proposals "
            "nearly free and the whole system runs at interactive frame rates."
        ),
        points=(
            "Region proposal network with anchor boxes at several scales.",
            "Shared features between proposal and detection stages.",
            "Trained end to end with alternating optimisation.",
        ),
        citation_count=70211,
        repositories=(_gh("rbgirshick/py-faster-rcnn"),),
        tasks=("11",),
        methods=("8", "5"),
        organizations=("5",),
        frameworks=("21",),
        conference="neurips-2015",
        added="2018-11-20",
        velocity=0.2,
    ),
    Paper(
        id="291",
        arxiv_id="1506.02640",
        title="You Only Look Once: Unified, Real-Time Object Detection",
        authors=("Joseph Redmon", "Santosh Divvala", "Ross Girshick", "Ali Farhadi"),
        published="2015-06-08",
        abstract=(
            "Detection is framed as a single regression from image pixels to box "
            "coordinates and class probabilities. One network evaluation per image makes "
            "the detector extremely fast, at some cost in localisation accuracy."
        ),
        points=(
            "A grid predicts boxes and class scores in one pass.",
            "Global image context reduces background false positives.",
            "Runs in real time on a single GPU.",
        ),
        citation_count=52003,
        repositories=(_gh("pjreddie/darknet"), _gh("ultralytics/ultralytics", False)),
        tasks=("11", "23"),
        methods=("9",),
        organizations=("13",),
        frameworks=("22",),
        conference="cvpr-2016",
        added="2018-11-20",
        velocity=0.6,
    ),
    Paper(
        id="2290",
        arxiv_id="2005.14165",
        title="Language Models are Few-Shot Learners",
        authors=("Tom B. Brown", "Benjamin Mann", "Nick Ryder", "Melanie Subbiah", "Jared Kaplan"),
        published="2020-05-28",
        abstract=(
            "Scaling an autoregressive language model to 175 billion parameters yields "
            "strong task performance from a handful of in-context examples, without any "
            "gradient updates. The paper also studies the limits and societal impact of "
            "such models."
        ),
        points=(
            "In-context learning improves steadily with model scale.",
            "Zero-, one- and few-shot settings are evaluated side by side.",
            "Data contamination is measured and discussed.",
        ),
        citation_count=45012,
        tasks=("12", "13"),
        methods=("2",),
        organizations=("4",),
        conference="neurips-2020",
        added="2020-05-29",
        velocity=0.3,
    ),
    Paper(
        id="120",
        arxiv_id="1406.2661",
        title="Generative Adversarial Networks",
        authors=(
            "Ian J. Goodfellow",
            "Jean Pouget-Abadie",
            "Mehdi Mirza",
            "Bing Xu",
            "Yoshua Bengio",
        ),
        published="2014-06-10",
        abstract=(
            "Two networks are trained against each other: a generator that maps noise to "
            "samples and a discriminator that tells samples from data. At the game's "
            "equilibrium the generator reproduces the data distribution."
        ),
        points=(
            "A minimax game between generator G and discriminator D.",
            "No Markov chains or approximate inference needed.",
            "Samples on small image datasets are competitive.",
        ),
        citation_count=73555,
        repositories=(_gh("goodfeli/adversarial"),),
        tasks=("25",),
        methods=("10",),
        organizations=("12",),
        conference="neurips-2014",
        added="2018-11-20",
        velocity=0.1,
    ),
    Paper(
        id="2301",
        arxiv_id="2006.11239",
        title="Denoising Diffusion Probabilistic Models",
        authors=("Jonathan Ho", "Ajay Jain", "Pieter Abbeel"),
        published="2020-06-19",
        abstract=(
            "Images are generated by learning to reverse a gradual noising process. A "
            "reweighted variational objective connects the model to denoising score "
            "matching and produces high-quality samples."
        ),
        points=(
            "Forward process adds Gaussian noise over T steps: q(xₜ|xₜ₋₁).",
            "The network predicts the added noise ε.",
            "Sample quality rivals adversarial models.",
        ),
        citation_count=21004,
        repositories=(_gh("hojonathanho/diffusion"),),
        tasks=("25",),
        methods=("11",),
        organizations=("6",),
        conference="neurips-2020",
        added="2020-06-22",
        velocity=0.9,
    ),
    Paper(
        id="3120",
        arxiv_id="2103.00020",
        title="Learning Transferable Visual Models From Natural Language Supervision",
        authors=("Alec Radford", "Jong Wook Kim", "Chris Hallacy", "Aditya Ramesh"),
        published="2021-02-26",
        abstract=(
            "Predicting which caption goes with which image, at the scale of hundreds of "
            "millions of web pairs, teaches visual concepts that transfer zero-shot. The "
            "resulting models classify images from natural-language class names."
        ),
        points=(
            "Contrastive image-text pretraining on web-scale pairs.",
            "Zero-shot classification via text prompts.",
            "Robustness under distribution shift improves markedly.",
        ),
        citation_count=30440,
        repositories=(_gh("openai/CLIP"),),
        hf_models=("https://huggingface.co/openai/clip-vit-large-patch14",),
        tasks=("10", "27"),
        methods=("12", "6"),
        organizations=("4",),
        conference="icml-2021",
        added="2021-03-01",
        velocity=1.2,
    ),
    Paper(
        id="150",
        arxiv_id="1412.6980",
        title="Adam: A Method for Stochastic Optimization",
        authors=("Diederik P. Kingma", "Jimmy Ba"),
        published="2014-12-22",
        abstract=(
            "A first-order optimiser keeps running estimates of the first and second "
            "moments of the gradient and scales each step accordingly. It is easy to "
            "implement, needs little tuning and works well on noisy, sparse problems."
        ),
        points=(
            "Bias-corrected moment estimates.",
            "Invariant to diagonal rescaling of gradients.",
            "A variant based on the infinity norm is also given.",
        ),
        citation_count=190002,
        tasks=("27",),
        methods=("4",),
        conference="iclr-2015",
        added="2018-11-20",
        velocity=0.05,
        markdown=False,  # the catalog paper without stored Markdown
    ),
    Paper(
        id="2305",
        arxiv_id="2006.11477",
        title=("wav2vec 2.0: A Framework for Self-Supervised Learning of Speech Representations"),
        authors=("Alexei Baevski", "Henry Zhou", "Abdelrahman Mohamed", "Michael Auli"),
        published="2020-06-20",
        abstract=(
            "Speech representations are learned from raw audio by masking latent frames "
            "and solving a contrastive task over quantised targets. Fine-tuning on very "
            "little labelled speech then gives strong recognition accuracy."
        ),
        points=(
            "Contrastive loss over masked latent speech frames.",
            "Jointly learned discrete speech units.",
            "Ten minutes of labels suffice for usable recognition.",
        ),
        citation_count=6120,
        repositories=(_gh("facebookresearch/fairseq"),),
        hf_models=("https://huggingface.co/facebook/wav2vec2-base-960h",),
        tasks=("260", "259"),
        methods=("20", "2"),
        organizations=("3",),
        frameworks=("32",),
        conference="neurips-2020",
        added="2020-06-23",
        velocity=0.4,
    ),
    Paper(
        id="612",
        arxiv_id="1703.06870",
        title="Mask R-CNN",
        authors=("Kaiming He", "Georgia Gkioxari", "Piotr Dollár", "Ross Girshick"),
        published="2017-03-20",
        abstract=(
            "A small mask branch added to a two-stage detector predicts a segmentation "
            "mask for every detected object. A quantisation-free feature pooling step "
            "keeps masks aligned with the pixels."
        ),
        points=(
            "RoIAlign removes the misalignment of RoI pooling.",
            "Mask and class predictions are decoupled.",
            "Extends naturally to keypoint detection.",
        ),
        citation_count=33010,
        repositories=(_gh("facebookresearch/Detectron"), _gh("facebookresearch/detectron2")),
        tasks=("22", "11"),
        methods=("17", "5"),
        organizations=("3",),
        frameworks=("21",),
        conference="iccv-2017",
        added="2018-11-20",
        velocity=0.3,
    ),
    Paper(
        id="1690",
        arxiv_id="1911.05722",
        title="Momentum Contrast for Unsupervised Visual Representation Learning",
        authors=("Kaiming He", "Haoqi Fan", "Yuxin Wu", "Saining Xie", "Ross Girshick"),
        published="2019-11-13",
        abstract=(
            "Contrastive learning is cast as dictionary look-up with a queue of encoded "
            "keys and a slowly moving key encoder. The large, consistent dictionary makes "
            "unsupervised pretraining competitive with supervised pretraining."
        ),
        points=(
            "A queue decouples dictionary size from batch size.",
            "A momentum-updated key encoder keeps keys consistent.",
            "Transfers well to detection and segmentation.",
        ),
        citation_count=12044,
        repositories=(_gh("facebookresearch/moco"),),
        tasks=("27", "10"),
        methods=("18", "5"),
        organizations=("3",),
        conference="cvpr-2020",
        added="2019-11-15",
        velocity=0.2,
    ),
    Paper(
        id="3650",
        arxiv_id="2111.06377",
        title="Masked Autoencoders Are Scalable Vision Learners",
        authors=(
            "Kaiming He",
            "Xinlei Chen",
            "Saining Xie",
            "Yanghao Li",
            "Piotr Dollár",
            "Ross Girshick",
        ),
        published="2021-11-11",
        abstract=(
            "Masking most image patches and reconstructing the missing pixels is a simple "
            "and scalable self-supervised task. An asymmetric encoder that only sees "
            "visible patches makes pretraining large vision transformers cheap."
        ),
        points=(
            "Mask 75% of patches; encode only the visible 25%.",
            "A lightweight decoder reconstructs pixels.",
            "Fine-tuned models reach top accuracy with ImageNet-1k data only.",
        ),
        citation_count=9870,
        repositories=(_gh("facebookresearch/mae"),),
        tasks=("27", "10"),
        methods=("19", "6"),
        organizations=("3",),
        frameworks=("23",),
        conference="cvpr-2022",
        added="2021-11-12",
        velocity=0.6,
    ),
    Paper(
        id="4921",
        arxiv_id="2309.06180",
        title=("Efficient Memory Management for Large Language Model Serving with PagedAttention"),
        authors=("Woosuk Kwon", "Zhuohan Li", "Siyuan Zhuang", "Ying Sheng", "Ion Stoica"),
        published="2023-09-12",
        abstract=(
            "Serving throughput of language models is limited by wasteful key-value cache "
            "memory. Managing the cache in fixed-size blocks, like pages of virtual "
            "memory, nearly eliminates fragmentation and allows sharing across requests."
        ),
        points=(
            "Block-level KV cache management inspired by paging.",
            "Copy-on-write sharing for parallel sampling.",
            "Two to four times higher throughput at equal latency.",
        ),
        citation_count=2410,
        repositories=(_gh("vllm-project/vllm"),),
        tasks=("28",),
        methods=("16", "2"),
        organizations=("6",),
        frameworks=("11",),
        conference="sosp-2023",
        added="2023-09-13",
        velocity=3.1,
    ),
    Paper(
        id="1495",
        arxiv_id="1903.08689",
        title="Implicit Generation and Generalization in Energy-Based Models",
        authors=("Yilun Du", "Igor Mordatch"),
        published="2019-03-20",
        abstract=(
            "Energy-based models are trained at scale with Langevin-dynamics sampling and "
            "a replay buffer. The resulting implicit generators produce coherent images, "
            "compose concepts and detect out-of-distribution inputs."
        ),
        points=(
            "Langevin sampling with a replay buffer stabilises training.",
            "Energies compose by summation.",
            "Useful for out-of-distribution detection.",
        ),
        citation_count=740,
        repositories=(_gh("openai/ebm_code_release"),),
        tasks=("25",),
        methods=("26",),
        organizations=("4", "7"),
        conference="neurips-2019",
        added="2019-03-22",
        velocity=0.1,
    ),
    Paper(
        id="1712",
        arxiv_id="1911.02116",
        title="Unsupervised Cross-lingual Representation Learning at Scale",
        authors=(
            "Alexis Conneau",
            "Kartikay Khandelwal",
            "Naman Goyal",
            "Vishrav Chaudhary",
            "Guillaume Wenzek",
        ),
        published="2019-11-05",
        abstract=(
            "A masked language model is pretrained on filtered web text in one hundred "
            "languages. Scale and a careful vocabulary let one model serve high- and "
            "low-resource languages alike, with large gains on cross-lingual transfer."
        ),
        points=(
            "Two terabytes of cleaned multilingual web text.",
            "The curse of multilinguality and how capacity offsets it.",
            "Per-language samples are listed in the appendix (very long).",
        ),
        citation_count=6503,
        repositories=(_gh("facebookresearch/fairseq"),),
        hf_models=("https://huggingface.co/FacebookAI/xlm-roberta-large",),
        tasks=("6", "13"),
        methods=("7", "2"),
        organizations=("3",),
        frameworks=("32",),
        conference="acl-2020",
        added="2019-11-07",
        velocity=0.2,
    ),
    Paper(
        id="4880",
        arxiv_id="2310.06770",
        title="SWE-bench: Can Language Models Resolve Real-World GitHub Issues?",
        authors=("Carlos E. Jimenez", "John Yang", "Alexander Wettig", "Shunyu Yao", "Ofir Press"),
        published="2023-10-10",
        abstract=(
            "Real issues and their fixing pull requests from popular Python repositories "
            "form a benchmark for software-engineering agents. A solution counts only if "
            "the repository's own tests pass after the patch is applied."
        ),
        points=(
            "Task instances come from merged pull requests with tests.",
            "Evaluation runs the repository's test suite.",
            "Early models resolve only a small fraction of issues.",
        ),
        citation_count=880,
        repositories=(_gh("princeton-nlp/SWE-bench"),),
        tasks=("3", "8"),
        methods=("2",),
        organizations=("10",),
        conference="iclr-2024",
        added="2023-10-11",
        velocity=1.9,
    ),
    Paper(
        id="6230",
        arxiv_id="2501.12948",
        title=(
            "DeepSeek-R1: Incentivizing Reasoning Capability in LLMs via Reinforcement Learning"
        ),
        authors=("DeepSeek-AI",),
        published="2025-01-22",
        abstract=(
            "Reinforcement learning with rule-based rewards, applied directly to a base "
            "model, elicits long chains of reasoning. A multi-stage recipe then makes the "
            "outputs readable, and the reasoning ability is distilled into smaller models."
        ),
        points=(
            "Pure RL without supervised warm-up already develops reflection.",
            "Group relative policy optimisation avoids a critic model.",
            "Distilled small models inherit much of the reasoning skill.",
        ),
        citation_count=3120,
        repositories=(_gh("deepseek-ai/DeepSeek-R1"),),
        hf_models=("https://huggingface.co/deepseek-ai/DeepSeek-R1",),
        tasks=("32", "12"),
        methods=("24", "2"),
        organizations=("8",),
        frameworks=("11",),
        added="2025-01-23",
        velocity=5.6,
    ),
    Paper(
        id="5890",
        arxiv_id="2408.00714",
        title="SAM 2: Segment Anything in Images and Videos",
        authors=("Nikhila Ravi", "Valentin Gabeur", "Yuan-Ting Hu", "Ronghang Hu"),
        published="2024-08-01",
        abstract=(
            "A promptable segmentation model is extended from images to videos with a "
            "streaming memory of past frames. A data engine with annotators in the loop "
            "builds the largest video segmentation dataset to date."
        ),
        points=(
            "Streaming memory attention across frames.",
            "One model for images and videos.",
            "Interactive refinement needs fewer clicks.",
        ),
        citation_count=1450,
        repositories=(_gh("facebookresearch/sam2"),),
        project_pages=("https://ai.meta.com/sam2/",),
        hf_spaces=("https://huggingface.co/spaces/facebook/sam2",),
        tasks=("24", "22"),
        methods=("6",),
        organizations=("3",),
        conference="iclr-2025",
        added="2024-08-02",
        velocity=2.2,
    ),
    # ---- invented papers (titles and IDs are made up for the tests) ----------------
    Paper(
        id="900",
        arxiv_id="math.GT/0309136",
        title="Twisted Torsion Invariants of Knot Complements",  # invented title
        authors=("Elena Varga", "Tomasz Wierzbicki"),
        published="2003-09-08",
        abstract=(
            "Torsion invariants twisted by representations of the knot group are computed "
            "for a family of hyperbolic knots. The invariants separate mutant pairs that "
            "classical polynomials cannot tell apart."
        ),
        points=(
            "Representations into SL(2, ℂ) define the twisting.",
            "Explicit computations for twelve-crossing knots.",
            "Mutants are separated in several cases.",
        ),
        citation_count=12,
        tasks=("31",),
        added="2018-11-20",
        url_abs="https://arxiv.org/abs/math/0309136",
    ),
    Paper(
        id="4242",
        arxiv_id=None,
        title="Clinical Outcome Prediction from Admission Notes",  # invented external paper
        authors=("Mara Lindqvist", "Jonas Berg"),
        published="2026-06-10",
        abstract=(
            "Admission notes are used to predict in-hospital outcomes with a clinical "
            "language model. The study reports calibration as well as discrimination and "
            "analyses which note sections the model relies on."
        ),
        points=(
            "Notes only, no structured vitals.",
            "Calibration is reported alongside AUROC.",
            "Section ablations show the history of present illness matters most.",
        ),
        citation_count=4,
        tasks=("13",),
        methods=("7",),
        source="external",
        added="2026-06-12",
        velocity=0.5,
        url_abs="https://example.org/proceedings/clinical-outcome-prediction",
    ),
    Paper(
        id="91001",
        arxiv_id="2607.01234",
        title="Scaling Test-Time Compute for Small Language Models",  # invented, shared title
        authors=("Priya Raman", "Daniel Okafor"),
        published="2026-07-02",
        abstract=(
            "Small language models are given a larger inference budget through repeated "
            "sampling and verification. Under a fixed compute budget, spending it at test "
            "time beats spending it on a larger model for reasoning-heavy tasks."
        ),
        points=(
            "Best-of-N sampling with a learned verifier.",
            "Compute-optimal trade-off between model size and samples.",
            "Gains concentrate on multi-step problems.",
        ),
        citation_count=18,
        repositories=(_gh("example-lab/ttc-small"),),
        tasks=("32", "12"),
        methods=("2",),
        organizations=("2",),
        conference="neurips-2026",
        added="2026-07-03",
        velocity=3.4,
    ),
    Paper(
        id="91002",
        arxiv_id="2609.05678",
        title="Scaling Test-Time Compute for Small Language Models",  # invented, shared title
        authors=("Wei Zhang", "Laura Bianchi", "Yilun Du"),
        published="2026-09-09",
        abstract=(
            "A second study of the same question reaches a different conclusion: when the "
            "verifier is also small, extra samples saturate quickly and a moderately larger "
            "model is the better use of compute."
        ),
        points=(
            "Verifier quality bounds test-time scaling.",
            "Saturation appears after a few dozen samples.",
            "Recommendations depend on the task family.",
        ),
        citation_count=6,
        tasks=("32",),
        methods=("2",),
        organizations=("7",),
        added="2026-09-10",
        velocity=2.8,
    ),
    Paper(
        id="91010",
        arxiv_id="2608.04410",
        title="Sparse Routing for On-Device Speech Recognition",  # invented
        authors=("alex-kim-41", "Sun-Hee Park"),
        published="2026-08-04",
        abstract=(
            "A mixture-of-experts speech recogniser routes each frame to one small expert, "
            "keeping the active parameter count low enough for phones while matching a "
            "dense model's word error rate."
        ),
        points=(
            "Frame-level top-1 routing with load balancing.",
            "Quantised experts fit in on-device memory.",
            "Latency stays below real time on a mid-range phone.",
        ),
        citation_count=2,
        repositories=(_gh("alex-one/sparse-asr"),),
        tasks=("260",),
        methods=("2",),
        frameworks=("9",),
        added="2026-08-05",
        velocity=1.6,
    ),
    Paper(
        id="91011",
        arxiv_id="2610.07720",
        title="Robust Tabular Anomaly Detection with Contrastive Pretraining",  # invented
        authors=("alex-kim-72", "Olivia Grant"),
        published="2026-10-07",
        abstract=(
            "Tabular anomaly detectors are pretrained with a contrastive objective over "
            "corrupted rows. The learned representations make simple distance-based "
            "detectors robust to irrelevant and noisy columns."
        ),
        points=(
            "Row corruption as a pretext task.",
            "Distance-based scoring on learned features.",
            "Robust to irrelevant columns.",
        ),
        citation_count=0,
        tasks=("29",),
        methods=("18",),
        added="2026-10-08",
        velocity=0.7,
    ),
    Paper(
        id="91020",
        arxiv_id="2603.11111",
        title="Efficient Open-Vocabulary Detection at the Edge",  # invented
        authors=("Hannah Weiss", "Ravi Shankar", "Ross Girshick"),
        published="2026-03-12",
        abstract=(
            "An open-vocabulary detector is distilled into a compact model that runs on "
            "embedded GPUs. Text embeddings are cached per vocabulary so that inference "
            "costs the same as a closed-set detector."
        ),
        points=(
            "Distillation from a large vision-language detector.",
            "Cached text embeddings per vocabulary.",
            "Real-time on embedded hardware.",
        ),
        citation_count=9,
        repositories=(_gh("nvlabs/edge-ovd"),),
        tasks=("11", "23"),
        methods=("12", "9"),
        organizations=("1",),
        frameworks=("22",),
        conference="cvpr-2026",
        added="2026-03-13",
        velocity=2.0,
    ),
    Paper(
        id="91030",
        arxiv_id="2605.02020",
        title="Compositional Energy Models for Visual Planning",  # invented
        authors=("Yilun Du", "Kaiming He", "Mei Tanaka"),
        published="2026-05-20",
        abstract=(
            "Plans are generated by composing energy functions for sub-goals and sampling "
            "their product. Composition lets a planner trained on simple scenes solve "
            "longer tasks it never saw during training."
        ),
        points=(
            "Sub-goal energies are summed to form a plan energy.",
            "Sampling uses annealed Langevin dynamics.",
            "Generalises to longer horizons than seen in training.",
        ),
        citation_count=11,
        repositories=(_gh("yilundu/comp-plan"),),
        tasks=("25", "27"),
        methods=("26", "11"),
        organizations=("7", "3"),
        conference="neurips-2025",
        added="2026-05-22",
        velocity=2.6,
    ),
    Paper(
        id="91050",
        arxiv_id="2606.03030",
        title="Reading Text in the Wild with Sparse Transformers",  # invented
        authors=("Lucía Romero", "Kenji Watanabe"),
        published="2026-06-03",
        abstract=(
            "Scene text recognition is treated as sparse set prediction over character "
            "queries. The recogniser handles curved and rotated text without "
            "rectification and adapts to handwriting with little extra data."
        ),
        points=(
            "Character queries attend to sparse image locations.",
            "No rectification stage for curved text.",
            "Few-shot adaptation to handwriting.",
        ),
        citation_count=5,
        repositories=(_gh("example-ocr/sparse-reader"),),
        tasks=("17", "18", "19"),
        methods=("2", "6"),
        organizations=("9",),
        conference="cvpr-2026",
        added="2026-06-05",
        velocity=1.3,
    ),
)

# Explicit lineage (predecessor, successor) pairs: catalog-api.md §2.7.
LINEAGE: tuple[tuple[str, str], ...] = (
    ("755", "1001"),
    ("755", "2290"),
    ("755", "2432"),
    ("4730", "5012"),
    ("5012", "91001"),
)

# Hand-picked related papers shown first by papers/{ref}/related (§2.6); papers
# sharing a task follow.
RELATED: dict[str, tuple[str, ...]] = {
    "755": ("1203", "1001", "2811"),
    "5012": ("4730", "2290"),
    "310": ("288", "612", "3650"),
}

# Notable papers, named for tests.
ATTENTION_ID = "755"
BIGGERGAIT_ID = "86122"
LEGACY_ID = "900"
LEGACY_ARXIV_ID = "math.GT/0309136"
EXTERNAL_ID = "4242"
MISSING_ARXIV_ID = "2308.10195"
NO_MARKDOWN_ARXIV_ID = "1412.6980"
BIG_MARKDOWN_ARXIV_ID = "1911.02116"
SAME_TITLE = "Scaling Test-Time Compute for Small Language Models"
SAME_TITLE_ARXIV_IDS = ("2607.01234", "2609.05678")


def build_authors(papers: tuple[Paper, ...]) -> dict[str, Author]:
    """Every author key used by `papers`, with generated IDs for unnamed people."""
    registry = dict(NAMED_AUTHORS)
    next_id = FIRST_GENERATED_AUTHOR_ID
    for paper in papers:
        for key in paper.authors:
            if key not in registry:
                registry[key] = Author(str(next_id), key)
                next_id += 1
    return registry
