"""Each example runs alone and really runs: the checks around sphinx-gallery's execution.

* ``reset_example``, sphinx-gallery's ``reset_modules`` hook, which this extension registers
  itself (``config-inited``, before sphinx-gallery reads its configuration): before each example
  it seeds everything and forgets earlier parity checks; after it, it fails the build, naming the
  example, if the example leaked global state (eager mode, default graph, dtype, threads, ...).
* ``check_every_example_ran`` (``build-finished``): every script the build was to execute has a
  page and a run that sphinx-gallery recorded.
* An ``atexit`` guard: ``raise SystemExit`` in an example ends sphinx-build, which must not exit 0.
"""

from __future__ import annotations

import ast
import atexit
import os
import re
import sys
from pathlib import Path

from sphinx.errors import ExtensionError

_before: dict = {}

_saved: dict = {}


def _global_state() -> dict:
    """The process-wide settings an example could leak into the next one."""
    state = {}
    if "tensorflow" in sys.modules:
        tf = sys.modules["tensorflow"]
        state["TensorFlow executes eagerly"] = tf.executing_eagerly()
        state["TensorFlow default graph"] = id(tf.compat.v1.get_default_graph())
        state["TensorFlow runs functions eagerly"] = tf.config.functions_run_eagerly()
    if "torch" in sys.modules:
        torch = sys.modules["torch"]
        state["torch default dtype"] = torch.get_default_dtype()
        state["torch default device"] = str(torch.get_default_device())
        state["torch grad mode"] = torch.is_grad_enabled()
        state["torch threads"] = torch.get_num_threads()
    if "torch._dynamo" in sys.modules:
        state["torch.compile recompile limit"] = sys.modules["torch._dynamo"].config.recompile_limit
    if "matplotlib.pyplot" in sys.modules:
        state["open matplotlib figures"] = len(sys.modules["matplotlib.pyplot"].get_fignums())
    return state


def _refuse_exit(*args):
    raise RuntimeError(
        "examples must not exit (sys.exit, exit, quit): sphinx-gallery cannot catch it and the "
        "page would silently not be written. Print a notice on the page instead."
    )


def _imports_beyond_stdlib(gallery_conf, fname: str) -> bool:
    """Whether the example ``fname`` (a file name in the gallery) imports a module outside
    Python's standard library. One that imports none (the tests' throwaway galleries) loads no
    framework, short of importing one by name at run time, so its checks need not import them
    (8 s here); the leak test's example imports both, as every real example does."""
    gallery = Path(gallery_conf["src_dir"], gallery_conf["examples_dirs"][0])
    scripts = list(gallery.rglob(Path(fname).name))
    imported = set()
    for script in scripts:
        for node in ast.walk(ast.parse(script.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                imported.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                imported.add(node.module or "")
    roots = {name.partition(".")[0] for name in imported}
    return not scripts or not roots <= sys.stdlib_module_names  # not found: it might


def reset_example(gallery_conf, fname, when) -> None:
    """Prepare each example and check it afterwards (sphinx-gallery's ``reset_modules`` hook).

    Before: turn deprecation warnings raised by the example's own code into errors, and make
    ``sys.exit()`` raise an ordinary error (the example prepares itself: its first line,
    ``sidebyside.start_lesson()``, seeds and starts its parity log, wherever it runs). Then freeze
    what is alive (the frameworks' modules, mostly): sphinx-gallery runs ``gc.collect()`` before
    every example, which otherwise walks both frameworks' ~0.5 million objects each time (8 s of
    a full build here); frozen objects are never collected, and they are all still in use.
    After: restore those, and fail naming the example if it changed global state.
    """
    import builtins
    import gc
    import warnings

    if fname is None:
        return
    if when == "before":
        # Both frameworks are loaded first, so that their state is compared afterwards; not for an
        # example that imports nothing beyond the standard library (the tests' throwaway ones).
        loaded = {"tensorflow", "torch"} <= sys.modules.keys()
        if not loaded and _imports_beyond_stdlib(gallery_conf, fname):
            import tensorflow  # noqa: F401
            import torch  # noqa: F401

        _before.clear()
        _before.update(_global_state())
        _saved.update(
            filters=warnings.filters[:],
            exit=sys.exit,
            builtins_exit=builtins.exit,
            quit=builtins.quit,
        )
        # The example runs as __main__: only warnings attributed to its own lines become errors.
        for category in (DeprecationWarning, PendingDeprecationWarning, FutureWarning):
            warnings.filterwarnings("error", category=category, module="__main__")
        sys.exit = builtins.exit = builtins.quit = _refuse_exit
        if gc.get_freeze_count():  # the previous example's garbage goes, the survivors freeze
            gc.collect()
        gc.freeze()  # (before the first example, the imports' garbage is not worth a 0.4 s walk)
        return
    warnings.filters[:] = _saved["filters"]
    sys.exit, builtins.exit, builtins.quit = _saved["exit"], _saved["builtins_exit"], _saved["quit"]
    after = _global_state()
    leaked = [
        f"{key}: {_before[key]!r} before, {after[key]!r} after"
        for key in _before
        if key in after and after[key] != _before[key]
    ]
    if leaked:
        raise ExtensionError(
            f"{Path(fname).name} leaked global state into the examples after it: "
            + "; ".join(leaked)
            + ". Build TF1 graphs inside `with tf.Graph().as_default():` and restore any "
            "global setting you change."
        )


_build = {"started": False, "finished": False}


def _exit_nonzero_if_unfinished() -> None:
    """Last line of defence: ``raise SystemExit`` in an example ends sphinx-build with status 0."""
    if _build["started"] and not _build["finished"]:
        sys.stderr.write(
            "sphinx-build stopped before the build finished (SystemExit in an example?)\n"
        )
        os._exit(1)


def check_every_example_ran(app, exception) -> None:
    """Every gallery script this build was to execute has a page, and sphinx-gallery recorded its
    run: executed without error now (``passing_examples``), or kept from an earlier run because
    its md5 is unchanged (``stale_examples``: the edit loop, merged shards). A failed one is
    reported by sphinx-gallery itself, with its traceback. Not a running time: a short example
    runs in "0.000 seconds" on a fast machine."""
    _build["finished"] = True
    if exception is not None:
        return
    conf = app.config.sphinx_gallery_conf
    recorded = {Path(p).name for p in [*conf["passing_examples"], *conf["stale_examples"]]}
    failed = {Path(p).name for p in conf["failing_examples"]}
    problems = []
    for examples_dir, gallery_dir in zip(conf["examples_dirs"], conf["gallery_dirs"], strict=True):
        examples_dir, gallery_dir = Path(app.srcdir, examples_dir), Path(app.srcdir, gallery_dir)
        for script in sorted(examples_dir.rglob("plot_*.py")):
            if not re.search(conf["filename_pattern"], str(script)) or script.name in failed:
                continue  # not to execute (the Chinese build), or reported by sphinx-gallery
            page = gallery_dir / script.relative_to(examples_dir).with_suffix(".rst")
            if not page.exists():
                problems.append(f"{script.name}: no page was written (did it call sys.exit()?)")
            elif script.name not in recorded:
                problems.append(f"{script.name}: sphinx-gallery recorded no run of it")
    if problems:
        raise ExtensionError("Examples that did not run:\n  " + "\n  ".join(problems))


HOOK = f"{__name__}.reset_example"


def register_reset_hook(app, config) -> None:
    """Add ``reset_example`` to sphinx-gallery's ``reset_modules``, by name (conf.py lists only
    the other modules to reset), before sphinx-gallery checks its configuration (priority 10)."""
    conf = config.sphinx_gallery_conf
    conf["reset_modules"] = (*conf.get("reset_modules", ("matplotlib",)), HOOK)


def setup(app):
    _build["started"] = True
    atexit.register(_exit_nonzero_if_unfinished)
    app.connect("config-inited", register_reset_hook, priority=5)
    app.connect("build-finished", check_every_example_ran)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
