"""Every matplotlib figure of the site in a light and a dark variant, switched by the theme.

pydata-sphinx-theme puts an ``<img>`` on a white background in dark mode (and dims it with a
filter) unless it has the class ``only-dark`` or ``dark-light``, and it hides ``.only-light`` in
dark mode and ``.only-dark`` in light mode. So each figure is saved twice:

* light: the figure exactly as the example drew it, what a reader running the script gets;
* dark: the same figure re-coloured for the theme's dark background by :func:`dark_colors`.
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

The examples stay plain matplotlib: none of this runs when a reader runs a downloaded script.
"""

from __future__ import annotations

import colorsys
import os
import re
from contextlib import contextmanager
from pathlib import Path

# pydata-sphinx-theme 0.24, dark mode: --pst-color-background and --pst-color-text-base.
DARK_BACKGROUND = (0x14 / 255, 0x18 / 255, 0x1E / 255)
DARK_TEXT = (0xCE / 255, 0xD6 / 255, 0xDD / 255)
MIN_CONTRAST = 3.0  # WCAG 2.2, 1.4.11: lines, marks and boxes against what is behind them
GREY_CHROMA = 0.1  # below this spread of r, g, b a colour counts as black, grey or white
PNG_KEY = "sidebyside-figure"  # PNG text chunk naming the variant: "light" or "dark"


# --- colours --------------------------------------------------------------------------------------


def luminance(color) -> float:
    """WCAG relative luminance of a colour (any matplotlib colour: "#ff8f00", (r, g, b)...)."""
    from matplotlib.colors import to_rgb

    def linear(c):
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(c) for c in to_rgb(color))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a, b) -> float:
    """WCAG contrast ratio of two colours (1 to 21)."""
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def is_grey(rgb) -> bool:
    return max(rgb[:3]) - min(rgb[:3]) < GREY_CHROMA


def _lighter(rgb, lightness_step: float = 0.01):
    """Lightness (HLS) at which the colour of ``rgb``'s hue first has ``MIN_CONTRAST`` on the
    dark background (its own lightness if it has already)."""
    hue, lightness, saturation = colorsys.rgb_to_hls(*rgb[:3])
    while contrast(rgb[:3], DARK_BACKGROUND) < MIN_CONTRAST and lightness < 0.95:
        lightness = min(lightness + lightness_step, 0.95)
        rgb = colorsys.hls_to_rgb(hue, lightness, saturation)
    return lightness


def needed_lift(rgba) -> float:
    """How far towards white (0: not at all, 1: white) a colour must move to be seen on the
    dark background; 0 for greys (they are mirrored instead) and for transparent colours."""
    if rgba[3] == 0 or is_grey(rgba):
        return 0.0
    lightness = colorsys.rgb_to_hls(*rgba[:3])[1]
    return (_lighter(rgba) - lightness) / (1 - lightness) if lightness < 1 else 0.0


def dark_color(rgba, lift: float = 0.0) -> tuple[float, float, float, float]:
    """``rgba`` for the dark theme: greys mirrored, colours kept but never lost in the background.

    White maps to the background, black to the theme's text colour, a grey in between to the
    matching point between the two. A colour keeps its hue and saturation; ``lift`` moves its
    lightness that share of the way to white. :func:`dark_colors` gives every colour of a figure
    the same lift, the least that makes its darkest colour visible, so colours that differ only
    in lightness (a ramp of oranges) keep their order and stay apart; usually it is 0 and the
    colours are exactly those of the light figure.
    """
    r, g, b, a = rgba
    if a == 0:
        return (r, g, b, a)
    if is_grey((r, g, b)):
        lightness = colorsys.rgb_to_hls(r, g, b)[1]
        rgb = tuple(
            t + (bg - t) * lightness for t, bg in zip(DARK_TEXT, DARK_BACKGROUND, strict=True)
        )
        if lightness > 0.85:  # white and near white: backgrounds, frames, faint grid lines
            return (*rgb, a)
    elif lift > 0:
        hue, lightness, saturation = colorsys.rgb_to_hls(r, g, b)
        rgb = colorsys.hls_to_rgb(hue, lightness + (1 - lightness) * lift, saturation)
    else:
        rgb = (r, g, b)
    if contrast(rgb, DARK_BACKGROUND) < MIN_CONTRAST:  # a grey, or a hue the lift fell short on
        hue, _, saturation = colorsys.rgb_to_hls(*rgb)
        rgb = colorsys.hls_to_rgb(hue, _lighter(rgb), saturation)
    return (*rgb, a)


def _rgba(color):
    from matplotlib.colors import to_rgba

    if isinstance(color, str) and color in ("none", "face", "auto"):
        return None
    try:
        return tuple(float(c) for c in to_rgba(color))
    except (ValueError, TypeError):
        return None


@contextmanager
def dark_colors(fig, drawn: bool = False):
    """Re-colour ``fig`` for the dark theme while the block runs, then restore every colour.

    Images and colour-mapped collections are data and keep their colours. The figure's and the
    axes' white backgrounds become transparent, so the page's own background shows through.
    ``drawn=True``: the figure was just drawn (saved), so its ticks and texts are placed already.
    """
    from matplotlib.collections import Collection
    from matplotlib.figure import FigureBase
    from matplotlib.image import AxesImage, FigureImage
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    from matplotlib.text import Text

    if not drawn:
        fig.canvas.draw()  # creates the ticks and places every text before anything is read
    backgrounds = set()
    for figure in fig.findobj(FigureBase, include_self=True):
        backgrounds.add(id(figure.patch))
        for ax in getattr(figure, "axes", []):
            backgrounds.add(id(ax.patch))

    # What to re-colour: (getter, setter, role) for every colour of every artist.
    slots, arrays, patches, texts, seen = [], [], [], [], set()
    for artist in fig.findobj(include_self=False):
        if isinstance(artist, (AxesImage, FigureImage)) or id(artist) in seen:
            continue  # images are data; and each artist is re-coloured once
        seen.add(id(artist))
        if isinstance(artist, Text):
            texts.append(artist)
            for patch in (artist.get_bbox_patch(), getattr(artist, "arrow_patch", None)):
                if patch is not None and id(patch) not in seen:
                    seen.add(id(patch))
                    slots.append((patch.get_facecolor, patch.set_facecolor, "color"))
                    slots.append((patch.get_edgecolor, patch.set_edgecolor, "color"))
        elif isinstance(artist, Line2D):
            slots.append((artist.get_color, artist.set_color, "color"))
            slots.append((artist.get_markerfacecolor, artist.set_markerfacecolor, "color"))
            slots.append((artist.get_markeredgecolor, artist.set_markeredgecolor, "color"))
        elif isinstance(artist, Patch):
            background = id(artist) in backgrounds
            slots.append(
                (
                    artist.get_facecolor,
                    artist.set_facecolor,
                    "background" if background else "color",
                )
            )
            slots.append((artist.get_edgecolor, artist.set_edgecolor, "color"))
            if not background:
                patches.append(artist)
        elif isinstance(artist, Collection) and artist.get_array() is None:  # else colour-mapped
            arrays.append((artist.get_facecolor, artist.set_facecolor))
            arrays.append((artist.get_edgecolor, artist.set_edgecolor))

    # One lift for the whole figure: the least that makes its darkest colour visible.
    colors = (
        [_rgba(getter()) for getter, _, _ in slots]
        + [tuple(c) for getter, _ in arrays for c in getter()]
        + [_rgba(text.get_color()) for text in texts]
    )
    lift = max((needed_lift(c) for c in colors if c is not None), default=0.0)

    def mapped(rgba, role="color"):
        if role == "background" and is_grey(rgba) and min(rgba[:3]) > 0.85:
            return (*rgba[:3], 0.0)  # white behind the figure or the axes: transparent
        return dark_color(rgba, lift)

    undo = []

    def swap(getter, setter, new):
        old = getter()
        rgba = _rgba(old)
        if rgba is not None and new(rgba) != rgba:
            undo.append((setter, old))
            setter(new(rgba))

    for getter, setter, role in slots:
        swap(getter, setter, lambda rgba, role=role: mapped(rgba, role))
    for getter, setter in arrays:
        old = getter()
        if len(old):
            undo.append((setter, old.copy()))
            setter([mapped(tuple(c)) for c in old])
    for text in texts:
        behind = _background_of(text, patches)
        if behind is None:
            swap(text.get_color, text.set_color, mapped)
        else:  # on a box: whichever of the two colours reads better on the box's new colour
            swap(
                text.get_color,
                text.set_color,
                lambda rgba, behind=behind: max(
                    (rgba, mapped(rgba)), key=lambda c: contrast(c, behind)
                ),
            )
    try:
        yield fig
    finally:
        for setter, old in reversed(undo):
            setter(old)


def _background_of(text, patches):
    """The (already re-coloured) face of the topmost opaque box ``text`` sits on, or None."""
    bbox_patch = text.get_bbox_patch()
    if bbox_patch is not None and bbox_patch.get_facecolor()[3] > 0.5:
        return bbox_patch.get_facecolor()
    if text.axes is None or not text.get_visible() or not text.get_text():
        return None
    anchor = text.get_transform().transform(text.get_unitless_position())
    under = [
        patch
        for patch in patches
        if patch.axes is text.axes
        and patch.get_visible()
        and patch.get_zorder() <= text.get_zorder()
        and patch.get_facecolor()[3] > 0.5
        and patch.contains_point(anchor)
    ]
    if not under:
        return None
    return max(under, key=lambda patch: patch.get_zorder()).get_facecolor()


# --- gallery pages: a sphinx-gallery image scraper ----------------------------------------------


def _dark_path(path) -> Path:
    path = Path(path)
    return path.with_name(f"{path.stem}_dark{path.suffix}")


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
    pairs = []
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
    if len(pairs) == 1:
        (light, dark, alt), kind = pairs[0], "sphx-glr-single-img"
        return "".join(
            IMAGE.format(path=path, alt=alt, kind=kind, variant=variant)
            for path, variant in ((light, "light"), (dark, "dark"))
        )
    rst = "\n.. rst-class:: sphx-glr-horizontal\n\n"
    for light, dark, alt in pairs:
        images = "".join(
            IMAGE.format(path=path, alt=alt, kind="sphx-glr-multi-img", variant=variant)
            for path, variant in ((light, "light"), (dark, "dark"))
        )
        rst += "\n    *\n" + re.sub(r"(?m)^(?=.)", "      ", images)
    return rst


def _thumbnail_path(example: Path, images_dir: Path) -> Path:
    """sphinx-gallery's thumbnail for ``example`` (``images/thumb/sphx_glr_<name>_thumb.png``)."""
    return images_dir / "thumb" / f"sphx_glr_{example.stem}_thumb.png"


def _write_dark_thumbnail(dark_image: Path, block_vars, gallery_conf) -> None:
    from sphinx_gallery.utils import scale_image

    thumb = _dark_path(_thumbnail_path(Path(block_vars["src_file"]), dark_image.parent))
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


# --- notebook pages: an IPython extension in the kernel ---------------------------------------


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


KERNEL_CONFIG = """\
# Written by docs/_ext/figures.py for this build: notebook pages show each figure light and dark.
import sys

sys.path.insert(0, {ext!r})
c.InteractiveShellApp.extensions = ["figures"]
"""


def configure_kernels(app) -> None:
    """Point the build's Jupyter kernels at an IPython profile that loads this extension.

    The profile lives in the build folder, beside jupyter_cache (never in the sources or the
    user's ~/.ipython); kernels inherit ``IPYTHONDIR`` from this process.
    """
    ipython_dir = Path(app.srcdir) / "_build" / "ipython"
    profile = ipython_dir / "profile_default"
    profile.mkdir(parents=True, exist_ok=True)
    config = KERNEL_CONFIG.format(ext=str(Path(__file__).resolve().parent))
    (profile / "ipython_kernel_config.py").write_text(config, encoding="utf-8")
    os.environ["IPYTHONDIR"] = str(ipython_dir)


# --- both pages: the theme's classes on the images ------------------------------------------------

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
