"""Builds a module project (a Meson project that uses dependency('lapis-dualview')) against the
installed lapis, once: later calls reuse the build, and Meson recompiles only what changed. A build
configured against another lapis (another Kokkos, another install) starts over."""
import os
import pathlib
import shutil
import subprocess
import sys


def build(source, build_dir=None, pkgconfig=None, kokkos_args=(), options=()):
    """Builds the project at `source` into `build_dir` (default: build/<name> beside it) against the
    lapis-dualview.pc in `pkgconfig` (default: the installed lapis's), its Kokkos code compiled with
    `kokkos_args` added (in the language the .pc's kokkos_language names: C++, or CUDA on a CUDA
    build) and the project configured with `options` (-Dname=value), and returns the folder that
    holds the built extension. Raises RuntimeError with Meson's
    output on failure."""
    source = pathlib.Path(source).resolve()
    build_dir = pathlib.Path(build_dir) if build_dir else source.parent / "build" / source.name
    if pkgconfig is None:
        pkgconfig = subprocess.check_output([sys.executable, "-m", "lapis", "--pkgconfigdir"], text=True).strip()
    env = dict(os.environ, PKG_CONFIG_PATH=pkgconfig,
               PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""))
    # Meson keeps what it found at configure time: the lapis a build was configured against, as its
    # pkg-config file says, decides whether the build can be reused
    built_against = (pathlib.Path(pkgconfig) / "lapis-dualview.pc").read_text() + "\n".join([*kokkos_args, *options])
    stamp = build_dir / "lapis-dualview.pc.configured"
    if build_dir.exists() and (not stamp.exists() or stamp.read_text() != built_against):
        shutil.rmtree(build_dir)
    steps = [["meson", "compile", "-C", str(build_dir)]]
    if not (build_dir / "build.ninja").exists():
        setup_options = list(options)
        if kokkos_args:
            language = subprocess.check_output(["pkg-config", "--variable=kokkos_language", "lapis-dualview"],
                                               env=env, text=True).strip()
            setup_options.append(f"-D{language}_args={','.join(kokkos_args)}")
        steps.insert(0, ["meson", "setup", str(build_dir), str(source)] + setup_options)
    for step in steps:
        run = subprocess.run(step, env=env, capture_output=True, text=True)
        if run.returncode != 0:
            raise RuntimeError(f"{' '.join(step)} failed:\n{run.stdout}{run.stderr}")
    stamp.write_text(built_against)
    return build_dir


def import_from(folder, name):
    """Imports the extension `name` built into `folder`."""
    sys.path.insert(0, str(folder))
    try:
        return __import__(name)
    finally:
        sys.path.remove(str(folder))
