"""``python -m rbfviz export``: a scrubbed view, or the ten lessons, as one offline HTML file.

    python -m rbfviz export --view explorer --dataset moons --k 2 --kind entmax15 --out moons.html
    python -m rbfviz export --view annealing --kind entmax --alpha 1.7 --out annealing.html
    python -m rbfviz export --lessons --out lessons.html
    python -m rbfviz export --lessons --lang pt-BR --out licoes.html

The file is what the app's "Interactive page (HTML)" download gives for the same settings: every σ level
of the view's figure, the numbers beside it and its "In words" sentence, the σ slider (mouse, touch,
keyboard), Play on Annealing; it opens from file:// with no network. ``--lang`` (en or pt-BR, default en)
is the language of the page's words and of its lessons. ``--out`` into a folder that does not
exist creates the folder (and says so). Bad settings get the messages the library's checks give
(rbfviz.views.export.build.Setting), and an --out that cannot be written says why, with exit code 2.
The link back to the app is ``--public-url`` (the command line reads no environment: pass
``--public-url "$RBFVIZ_PUBLIC_URL"`` for the app's address).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..datasets import DATASETS
from ..i18n import DEFAULT_LANGUAGE, LANGUAGES, translator
from ..validate import check_public_url
from ..views.export.build import INITS, QUANTITIES, VIEWS


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "export",
        help="a scrubbed view, or the ten lessons, as one self-contained offline HTML file",
        description="Write one HTML file that works from file:// with no network: a view at every σ "
        "(--view), or the Lessons with their figures and answer checks (--lessons).",
    )
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--view", choices=VIEWS, help="the view to export")
    what.add_argument("--lessons", action="store_true", help="the ten Lessons steps as one lesson pack")
    parser.add_argument("--out", required=True, help="the HTML file to write (its folder is created)")
    parser.add_argument(
        "--lang",
        choices=list(LANGUAGES),
        default=DEFAULT_LANGUAGE,
        help=f"the language of the page's words and lessons (default {DEFAULT_LANGUAGE})",
    )
    parser.add_argument("--dataset", choices=DATASETS, default="blobs", help="data set (default blobs)")
    parser.add_argument("--n", type=int, default=None, help="points (default 500; iris: 150)")
    parser.add_argument("--noise", type=float, default=None, help="generator noise (default: the data set's)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the data and the start (default 0)")
    parser.add_argument("--k", type=int, default=None, help="clusters (default: the data set's natural k)")
    parser.add_argument("--init", choices=INITS, default="kmeans++", help="initialisation (default kmeans++)")
    parser.add_argument(
        "--kind",
        default="softmax",
        help='map: softmax, entmax15, naive, or "entmax" with --alpha (default softmax)',
    )
    parser.add_argument("--alpha", type=float, default=None, help="α of --kind entmax, in [1.05, 2]")
    parser.add_argument("--dtype", default="float64", help="precision: float64 or float32 (default float64)")
    parser.add_argument("--sigma", type=float, default=None, help="σ the page opens at (default: the data's)")
    parser.add_argument(
        "--field",
        choices=QUANTITIES,
        default="max",
        help="Explorer: the field under the points (default max)",
    )
    parser.add_argument(
        "--public-url",
        type=public_url,
        default=None,
        help='the app\'s public address, http(s)://host[/path] (e.g. "$RBFVIZ_PUBLIC_URL"): the file '
        "links back to the same view there",
    )
    parser.set_defaults(handler=run_export)


def public_url(text: str) -> str:
    """An http(s) address with a host, no query or fragment (what the app's RBFVIZ_PUBLIC_URL allows)."""
    try:
        return check_public_url(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _progress(what: str):
    def report(done: int, total: int) -> None:
        print(f"\r{what}: {done}/{total}", end="" if done < total else "\n", file=sys.stderr, flush=True)

    return report


def run_export(args) -> int:
    """Check the settings, build the page, write it; ValueError (exit 2) for a bad setting."""
    from ..views.export.build import Setting

    out = Path(args.out)
    tr = translator(args.lang)
    if out.exists() and out.is_dir():
        raise ValueError(f"--out {args.out} is a folder; give a file name such as {out / 'rbfviz.html'}.")
    setting = None
    if not args.lessons:
        setting = Setting(
            view=args.view,
            dataset=args.dataset,
            n=args.n,
            noise=args.noise,
            seed=args.seed,
            k=args.k,
            init=args.init,
            kind=args.kind,
            alpha=args.alpha,
            dtype=args.dtype,
            sigma=args.sigma,
            quantity=args.field,
        )
    # the folder before the build, so that a path that cannot be written fails at once, not a minute later
    if out.parent.exists() and not out.parent.is_dir():
        raise ValueError(f"--out {args.out}: {out.parent} is a file, not a folder.")
    if not out.parent.exists():
        try:
            out.parent.mkdir(parents=True)
        except OSError as exc:
            raise ValueError(f"cannot create the folder {out.parent} for --out: {exc.strerror}.") from exc
        print(f"created the folder {out.parent}", file=sys.stderr)
    if setting is None:
        from ..views.export.lesson_pack import lesson_pack

        html = lesson_pack(public_url=args.public_url, progress=_progress("lesson steps"), tr=tr)
    else:
        from ..views.export.page import view_page

        html = view_page(
            setting, public_url=args.public_url, progress=_progress(f"{args.view}: σ levels"), tr=tr
        )
    data = html.encode("utf-8")
    try:
        out.write_bytes(data)
    except OSError as exc:
        raise ValueError(f"cannot write --out {out}: {exc.strerror}.") from exc
    print(f"wrote {out} ({len(data) / 1e6:.2f} MB)")
    return 0
