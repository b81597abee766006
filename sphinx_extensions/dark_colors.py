"""Re-colour a matplotlib figure for the theme's dark background (used by ``figures``).

Black and greys (text, axes, spines, ticks, grid, legend frames, edges) are mirrored, white
backgrounds become transparent, and colours (the data: TensorFlow orange, PyTorch red) are
kept, lightened only where they would not stand out from the background. Text on a coloured
box keeps whichever colour reads better on that box: a black label on an orange node stays
black, one on a grey node turns light. Not an extension: plain functions.
"""

from __future__ import annotations

import colorsys
from contextlib import contextmanager

# pydata-sphinx-theme 0.24, dark mode: --pst-color-background and --pst-color-text-base.
DARK_BACKGROUND = (0x14 / 255, 0x18 / 255, 0x1E / 255)

DARK_TEXT = (0xCE / 255, 0xD6 / 255, 0xDD / 255)

MIN_CONTRAST = 3.0  # WCAG 2.2, 1.4.11: lines, marks and boxes against what is behind them

GREY_CHROMA = 0.1  # below this spread of r, g, b a colour counts as black, grey or white


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
