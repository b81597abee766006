"""Every matplotlib figure of the site in a light and a dark variant, switched by the theme.

pydata-sphinx-theme puts an ``<img>`` on a white background in dark mode (and dims it with a
filter) unless it has the class ``only-dark`` or ``dark-light``, and it hides ``.only-light`` in
dark mode and ``.only-dark`` in light mode. So each figure is saved twice:

* light: the figure exactly as the example drew it, what a reader running the script gets;
* dark: the same figure re-coloured for the theme's dark background by :func:`sphinx_extensions.dark_colors.dark_colors`.
  Black and greys (text, axes, spines, ticks, grid, legend frames, edges) are mirrored, white
  backgrounds become transparent, and colours (the data: TensorFlow orange, PyTorch red) are
  kept, lightened only where they would not stand out from the background. Text on a coloured
  box keeps whichever colour reads better on that box: a black label on an orange node stays
  black, one on a grey node turns light.

Where the two variants come from:

* gallery pages: :func:`light_and_dark_scraper` (sphinx-gallery's ``image_scrapers``) saves both
  PNGs and writes two images with the theme's classes; it also writes a dark thumbnail beside
  sphinx-gallery's, and :func:`add_dark_images` shows it wherever that thumbnail is shown.
* notebook pages (MyST-NB, such as the landing page): the Jupyter kernel loads this module as
  an IPython extension (through an IPython profile made for the build, see
  :func:`configure_kernels`); it displays each figure twice, the variant named in the PNG's
  metadata, and :func:`add_dark_images` gives the two images their classes.
* Chinese: :mod:`sphinx_extensions.figure_words` draws a figure's words in Chinese.

The examples stay plain matplotlib: none of this runs when a reader runs a downloaded script.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from sphinx_extensions import figure_words
from sphinx_extensions.dark_colors import DARK_BACKGROUND, DARK_TEXT, GREY_CHROMA, dark_colors

PNG_KEY = "sidebyside-figure"  # PNG text chunk naming the variant: "light" or "dark"


def _dark_path(path) -> Path:
    return Path(path).with_stem(f"{Path(path).stem}_dark")


def _figure_titles(fig) -> str:
    titles = [fig._suptitle.get_text()] if getattr(fig, "_suptitle", None) else []
    for ax in fig.axes:
        titles += [t.get_text() for t in (ax._left_title, ax.title, ax._right_title)]
    return " ".join(" ".join(t.split()) for t in titles if t.strip())


IMAGE = """
.. image:: /{path}
   :alt: {alt}
   :class: {kind} only-{variant}
"""


def light_and_dark_scraper(block, block_vars, gallery_conf, **kwargs) -> str:
    """sphinx-gallery image scraper: every open matplotlib figure, light and dark.

    Written for ``image_scrapers`` in ``sphinx_gallery_conf`` (as ``"figures.light_and_dark_scraper"``).
    The light PNG gets sphinx-gallery's own name, so thumbnails and the
    ``image_path_iterator`` bookkeeping work as usual; the dark one is ``<name>_dark.png``.
    """
    import matplotlib.pyplot as plt
    from matplotlib.colors import to_rgba

    iterator = block_vars["image_path_iterator"]
    src_dir = Path(gallery_conf["src_dir"])
    thumbnail_number = (block_vars.get("file_conf") or {}).get("thumbnail_number", 1)
    pairs, drawn_words = [], {}  # the words drawn, in order, once each
    try:
        for number, image_path in zip(plt.get_fignums(), iterator, strict=False):
            fig = plt.figure(number)
            light, dark = Path(image_path), _dark_path(image_path)
            save = {**kwargs}
            for attr in ("facecolor", "edgecolor"):  # as sphinx-gallery's matplotlib scraper
                value = getattr(fig, f"get_{attr}")()
                if to_rgba(value) != to_rgba(plt.rcParams[f"figure.{attr}"]):
                    save.setdefault(attr, value)
            fig.savefig(light, **save)  # draws the figure: dark_colors need not draw it again
            with dark_colors(fig, drawn=True):
                fig.savefig(dark, **{**save, "facecolor": fig.get_facecolor()})
            if len(iterator) == thumbnail_number:
                _write_dark_thumbnail(dark, block_vars, gallery_conf)
            words = figure_words.save_translated(fig, light, dark, save, src_dir)
            drawn_words.update(dict.fromkeys(words))
            alt = _figure_titles(fig) or light.stem
            pairs.append(
                (
                    os.path.relpath(light, src_dir).replace(os.sep, "/"),
                    os.path.relpath(dark, src_dir).replace(os.sep, "/"),
                    alt,
                )
            )
    finally:
        plt.close("all")
    if not pairs:
        return ""
    words = figure_words.hidden_words(drawn_words)  # for the catalogue
    if len(pairs) == 1:
        (light, dark, alt), kind = pairs[0], "sphx-glr-single-img"
        return words + "".join(
            IMAGE.format(path=path, alt=alt, kind=kind, variant=variant)
            for path, variant in ((light, "light"), (dark, "dark"))
        )
    rst = words + "\n.. rst-class:: sphx-glr-horizontal\n\n"
    for light, dark, alt in pairs:
        images = "".join(
            IMAGE.format(path=path, alt=alt, kind="sphx-glr-multi-img", variant=variant)
            for path, variant in ((light, "light"), (dark, "dark"))
        )
        rst += "\n    *\n" + re.sub(r"(?m)^(?=.)", "      ", images)
    return rst


def _write_dark_thumbnail(dark_image: Path, block_vars, gallery_conf) -> None:
    """The dark twin of sphinx-gallery's ``images/thumb/sphx_glr_<name>_thumb.png``."""
    from sphinx_gallery.utils import scale_image

    name = f"sphx_glr_{Path(block_vars['src_file']).stem}_thumb.png"
    thumb = _dark_path(dark_image.parent / "thumb" / name)
    thumb.parent.mkdir(parents=True, exist_ok=True)
    scale_image(str(dark_image), str(thumb), *gallery_conf["thumbnail_size"])


def dark_from_pixels(light: Path, dark: Path) -> None:
    """A dark variant of a picture on white that no figure is left for (sphinx-gallery's
    "no image" and "broken" thumbnails): white becomes transparent (colour-to-alpha), and
    what is left goes through :func:`dark_color`."""
    import numpy as np
    from PIL import Image

    pixels = np.asarray(Image.open(light).convert("RGBA"), dtype=float) / 255
    rgb, alpha = pixels[..., :3], pixels[..., 3]
    ink = (1 - rgb).max(axis=-1)  # how far from white: the alpha of the colour over white
    with np.errstate(divide="ignore", invalid="ignore"):
        color = np.where(ink[..., None] > 0, 1 - (1 - rgb) / ink[..., None], 0.0)
    grey = (color.max(axis=-1) - color.min(axis=-1)) < GREY_CHROMA
    lightness = (color.max(axis=-1) + color.min(axis=-1)) / 2
    mirrored = (
        np.asarray(DARK_TEXT) + (np.asarray(DARK_BACKGROUND) - DARK_TEXT) * lightness[..., None]
    )
    color = np.where(grey[..., None], mirrored, color)
    out = np.concatenate([color, (ink * alpha)[..., None]], axis=-1)
    Image.fromarray((out * 255).round().astype("uint8"), "RGBA").save(dark)


def load_ipython_extension(ipython) -> None:
    """Display every matplotlib figure twice, light then dark (IPython calls this)."""
    formatter = ipython.display_formatter.ipython_display_formatter
    formatter.for_type_by_name("matplotlib.figure", "Figure", _display_light_and_dark)


def _display_light_and_dark(fig) -> None:
    from IPython.core.pylabtools import print_figure
    from IPython.display import publish_display_data
    try:
        from matplotlib_inline.config import InlineBackend

        options = dict(InlineBackend.instance().print_figure_kwargs)
    except ImportError:
        options = {"bbox_inches": "tight"}
    title = _figure_titles(fig)  # becomes the images' alt text
    light = print_figure(
        fig, "png", base64=True, metadata={PNG_KEY: "light", "Title": title}, **options
    )
    with dark_colors(fig):
        dark = print_figure(
            fig, "png", base64=True, metadata={PNG_KEY: "dark", "Title": title}, **options
        )
    for data in (light, dark):
        publish_display_data({"image/png": data, "text/plain": repr(fig)})
    figure_words.display_translated(fig, PNG_KEY, title, options)


KERNEL_CONFIG = """\
# Written by sphinx_extensions/figures.py for this build: notebook pages show each figure light and dark.
import sys

sys.path.insert(0, {ext!r})
c.InteractiveShellApp.extensions = ["sphinx_extensions.figures"]
"""


def configure_kernels(app) -> None:
    """Point the build's Jupyter kernels at an IPython profile that loads this extension.

    The profile lives in the build folder, beside jupyter_cache (never in the sources or the
    user's ~/.ipython); kernels inherit ``IPYTHONDIR`` from this process.
    """
    ipython_dir = Path(app.srcdir) / "_build" / "ipython"
    profile = ipython_dir / "profile_default"
    profile.mkdir(parents=True, exist_ok=True)
    config = KERNEL_CONFIG.format(ext=str(Path(__file__).resolve().parents[1]))
    (profile / "ipython_kernel_config.py").write_text(config, encoding="utf-8")
    os.environ["IPYTHONDIR"] = str(ipython_dir)


THUMBNAIL = re.compile(r"/thumb/sphx_glr_.+_thumb\.png$")


def _png_text(path: Path) -> dict:
    from PIL import Image

    try:
        with Image.open(path) as image:
            return dict(image.info)
    except OSError:
        return {}


def add_dark_images(app, doctree) -> None:
    """Give each light/dark pair the theme's classes; add the dark twin of each thumbnail.

    Runs before Sphinx collects the images of the page, so the new ones are copied too.
    """
    from docutils import nodes

    srcdir = Path(app.srcdir)
    here = Path(app.env.doc2path(app.env.docname)).parent
    for image in list(doctree.findall(nodes.image)):
        uri, classes = image["uri"], image["classes"]
        if "only-light" in classes or "only-dark" in classes or "://" in uri:
            continue
        path = srcdir / uri.lstrip("/") if uri.startswith("/") else here / uri
        if THUMBNAIL.search(uri):
            dark = _dark_path(path)
            if not dark.exists() and path.exists():
                dark_from_pixels(path, dark)
            if dark.exists():
                twin = image.deepcopy()
                twin["uri"] = str(_dark_path(Path(uri))).replace(os.sep, "/")
                twin["classes"] = [*classes, "only-dark"]
                classes.append("only-light")
                image.parent.insert(image.parent.index(image) + 1, twin)
        elif path.suffix == ".png" and path.exists():
            text = _png_text(path)
            if text.get(PNG_KEY) in ("light", "dark"):
                classes.append(f"only-{text[PNG_KEY]}")
                if text.get("Title") and not image.get("alt"):
                    image["alt"] = text["Title"]


def setup(app):
    configure_kernels(app)
    # Before Sphinx's image collector (priority 500) reads the page's images.
    app.connect("doctree-read", add_dark_images, priority=400)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
