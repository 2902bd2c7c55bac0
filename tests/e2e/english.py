"""Is this English? A detector of English sentences left on a page that should be in Portuguese
(tests/e2e/test_e2e_languages.py; its own tests: tests/unit/test_english_detector.py).

    english_segments("Mostrar os pontos\\nShow the points")   # ["Show the points"]

A text is cut into segments (lines, and sentences within them). A segment is English when, once the
terms that stay English in every language (``ALLOWED``: softmax, K-Means, CSV, …) are taken out, it has
two or more English words (``ENGLISH_WORDS``: function words such as "the", "of", "with", and the app's
own everyday words such as "points", "answer", "show"), or it is a label of one English word ("Points").
Words that are also Portuguese ("a", "e", "de", "do", "no", "as", "se", "real", "total") are not English
words here, so a Portuguese sentence never counts as English for them; code (``<code>``, ``<pre>``) and
addresses are not read: their names stay English by design (docs/contribute/translations.md).
"""

from __future__ import annotations

import re
import unicodedata

# Terms that stay as they are in every language (I18N rules: maths, method names, formats, the address).
# Matched whole, case-insensitively, and removed before the words are counted.
ALLOWED = (
    "softmax",
    "entmax-1.5",
    "entmax 1.5",
    "entmax15",
    "α-entmax",
    "entmax",
    "sparsemax",
    "k-means++",
    "k-means",
    "kmeans",
    "lloyd",
    "em",
    "e-step",
    "m-step",
    "csv",
    "json",
    "html",
    "png",
    "svg",
    "pdf",
    "url",
    "qr code",
    "page up/down",  # key names
    "page up",
    "page down",
    "float32",
    "float64",
    "nan",
    "inf",
    "one-hot",
    "voronoi",
    "rbf",
    "mlp",
    "relu",
    "torch",
    "pytorch",
    "numpy",
    "scikit-learn",
    "sklearn",
    "plotly",
    "streamlit",
    "python",
    "jupyter",
    "moodle",
    "canvas",
    "rbfviz",
    "gmm",
    "bic",
    "aic",
    "iris",
    "english",
    "language",  # the language menu's label names itself in both languages: "Idioma · Language"
    "underflow",
    "overflow",
    "log",
    "logit",
    "logits",
    "k_max",
    "g_min",
    "r_ij",
    "l_σ",
    "σ",
    "α",
    "η",
    "τ",
)
_ALLOWED = re.compile(
    r"(?<![\w-])(?:" + "|".join(re.escape(t) for t in sorted(ALLOWED, key=len, reverse=True)) + r")(?![\w-])",
    re.IGNORECASE,
)

# English words that are not Portuguese words (nor Portuguese words without their accents): the
# function words of any English sentence, and the everyday words of this app's English pages.
FUNCTION_WORDS = frozenset(
    """
    the and of is are was were be been being with to from this that these those each every at by
    when which not only in on for it its it's into than then there their they them we our you your
    my me he she his her has have had what where how why who whose or an all any some more most
    can cannot can't will would should could may might must does doesn't don't isn't aren't won't
    here if but so such also about after before over under between through while both other same
    just still yet out up down off very many much few none nothing one two three first last next
    """.split()
)
CONTENT_WORDS = frozenset(
    """
    show shows shown hide points point clusters centre centres center centers centroid centroids
    step steps answer answers question questions class session room join send start stop reveal open
    close uploaded file files choose chosen pick lesson lessons view views
    page pages temperature soft hard noise seed map maps precision initialisation initialization
    responsibilities responsibility assignment assignments loss distortion gradient learning
    rate fixed split splits bifurcation dataset dataset's data-set cell cells field probe play
    iteration iterations level levels bound bounds margin trajectory trajectories path paths restart
    restarts layer layers classifier training accuracy drawn hand own mixture gaussian network
    neural explorer annealing stability equivalence elbow silhouette sparse rounding
    plane figure figures words teacher student students run running wait loading
    again new old value values number numbers error errors warning notice invalid allowed
    changed changes change keep kept shared copy copied presenter mode theme dark light
    width height size sizes seconds percent counts count mean distance distances
    weights weight left right bottom above below larger smaller lower higher low high steep
    positive negative random seeding zero compute computed anyway exactly predicted measured learned
    against across convention used everywhere family closed form grey gray band white region apart row
    rows current circle radius slope component trained latent codes joint phase epoch test losses batch
    means skipped raw handwritten images deep alone enter finite quite quarter half wide like coin flip
    underflows naive whole falls poorest reach annealed sum squares speed second place starting
    """.split()
)
ENGLISH_WORDS = FUNCTION_WORDS | CONTENT_WORDS
# words that are English and also Portuguese (or Portuguese without accents): never counted
_ALSO_PORTUGUESE = frozenset(
    "a e o as os de do da dos das no na nos nas se em um uma por para com sem mas real total final "
    "local global ideal central original normal natural plot data set me link links download downloads "
    "upload home top time reset default pause".split()
)
ENGLISH_WORDS = ENGLISH_WORDS - _ALSO_PORTUGUESE

_SEGMENT_BREAK = re.compile(r"[\n\r]+|(?<=[.!?;:…])\s+|\s[·•|–—]\s")
_ADDRESS = re.compile(
    r"(?:https?://|www\.)\S+|(?<![\w/])/[\w/.-]+|\b\w+=\S*|\?\S+|\S+\.(?:py|csv|json|html|png|svg|md)\b"
)
# a message's {fields} and `code` (in the catalogs' messages and in Markdown) are names, not words
_NAMES = re.compile(r"\{[^{}]*\}|`[^`]*`")
_WORD = re.compile(r"[^\W\d_](?:[\w'’-]*[^\W_])?")


def segments(text: str) -> list[str]:
    """``text`` cut into lines, and each line into sentences and ``·``-separated parts, stripped."""
    return [s.strip() for s in _SEGMENT_BREAK.split(text) if s and s.strip()]


def _words(segment: str) -> list[str]:
    """The words of ``segment`` (lower case), without ALLOWED terms, addresses, {fields}, `code` and
    one-letter names (k, n, x)."""
    cleaned = _ALLOWED.sub(" ", _ADDRESS.sub(" ", _NAMES.sub(" ", unicodedata.normalize("NFC", segment))))
    words = [w.lower().replace("’", "'") for w in _WORD.findall(cleaned)]
    return [w for w in words if len(w) > 1]


def english_words(segment: str) -> list[str]:
    """The English words of ``segment`` (lower case, in order), after ``ALLOWED`` terms, addresses,
    {fields} and `code` are taken out."""
    return [w for w in _words(segment) if w in ENGLISH_WORDS]


def is_english(segment: str) -> bool:
    """Whether ``segment`` reads as English: two or more English words, or a label that is one English
    word and nothing else (numbers and ALLOWED terms aside)."""
    words = _words(segment)
    found = [w for w in words if w in ENGLISH_WORDS]
    return len(found) >= 2 or (len(words) == 1 and len(found) == 1 and len(words[0]) >= 3)


def english_segments(text: str) -> list[str]:
    """Every segment of ``text`` that reads as English (``is_english``), in order, without repeats."""
    found: list[str] = []
    for segment in segments(text):
        if is_english(segment) and segment not in found:
            found.append(segment)
    return found
