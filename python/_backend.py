"""_backend.py: the build backend of the streamtp package (PEP 517, PEP 660).

The package is pure Python (ctypes over libstreamtp), so a wheel is a zip of
streamtp/*.py and its metadata.  setuptools, the usual backend, writes
build/ and streamtp.egg-info/ into the source tree it builds from, which for
`pip install ./python` is the user's clone; this one writes only the wheel,
into the directory pip gives it, and needs nothing beyond the standard
library (no network, no build isolation: `pip install --no-build-isolation
--no-index ./python`).
"""
import base64
import hashlib
import io
import os
import re
import tarfile
import time
import zipfile

try:
    import tomllib
except ImportError:  # Python < 3.11: the few plain keys of [project] this file has
    tomllib = None

HERE = os.path.dirname(os.path.abspath(__file__))


def _project():
    path = os.path.join(HERE, "pyproject.toml")
    if tomllib is not None:
        with open(path, "rb") as f:
            return tomllib.load(f)["project"]
    text = open(path, encoding="utf-8").read().split("[project]", 1)[1].split("\n[", 1)[0]
    project = {k: v for k, v in re.findall(r'^([\w-]+) = "([^"]*)"', text, re.M)}
    project["classifiers"] = re.findall(r'"([^"]+)"', text.split("classifiers", 1)[1]) \
        if "classifiers" in text else []
    return project


def _metadata(p):
    lines = ["Metadata-Version: 2.1", f"Name: {p['name']}", f"Version: {p['version']}",
             f"Summary: {p['description']}", f"Requires-Python: {p['requires-python']}"]
    lines += [f"Classifier: {c}" for c in p.get("classifiers", [])]
    readme = os.path.join(HERE, p.get("readme", "README.md"))
    text = open(readme, encoding="utf-8").read() if os.path.exists(readme) else ""
    return "\n".join(lines + ["Description-Content-Type: text/markdown", "", text])


def _sources():
    """The module's files, as (path in the wheel, bytes); never _config.py
    (written by `cmake --install` for the copy it installs)."""
    pkg = os.path.join(HERE, "streamtp")
    for name in sorted(os.listdir(pkg)):
        if name.endswith(".py") and name != "_config.py":
            with open(os.path.join(pkg, name), "rb") as f:
                yield f"streamtp/{name}", f.read()


def _record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def _wheel(wheel_directory, files):
    p = _project()
    tag = "py3-none-any"
    dist = f"{p['name']}-{p['version']}"
    info = f"{dist}.dist-info"
    files = list(files) + [
        (f"{info}/METADATA", _metadata(p).encode()),
        (f"{info}/WHEEL", (f"Wheel-Version: 1.0\nGenerator: streamtp _backend\n"
                           f"Root-Is-Purelib: true\nTag: {tag}\n").encode())]
    record = "\n".join(_record_line(n, d) for n, d in files) + f"\n{info}/RECORD,,\n"
    name = f"{dist}-{tag}.whl"
    stamp = time.gmtime(int(os.environ.get("SOURCE_DATE_EPOCH", "315532800")))[:6]
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w", zipfile.ZIP_DEFLATED) as z:
        for n, d in files + [(f"{info}/RECORD", record.encode())]:
            entry = zipfile.ZipInfo(n, date_time=stamp)
            entry.external_attr = 0o644 << 16
            z.writestr(entry, d)
    return name


def get_requires_for_build_wheel(config_settings=None):
    return []


get_requires_for_build_sdist = get_requires_for_build_editable = get_requires_for_build_wheel


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    return _wheel(wheel_directory, _sources())


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    """A wheel whose .pth puts this source tree on the path (pip install -e)."""
    return _wheel(wheel_directory, [("streamtp-editable.pth", (HERE + "\n").encode())])


def build_sdist(sdist_directory, config_settings=None):
    p = _project()
    dist = f"{p['name']}-{p['version']}"
    name = f"{dist}.tar.gz"
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz") as t:
        for rel in ["pyproject.toml", "_backend.py", p.get("readme", "README.md")]:
            t.add(os.path.join(HERE, rel), f"{dist}/{rel}")
        for n, d in _sources():
            ti = tarfile.TarInfo(f"{dist}/{n}")
            ti.size = len(d)
            t.addfile(ti, io.BytesIO(d))
        meta = _metadata(p).encode()
        ti = tarfile.TarInfo(f"{dist}/PKG-INFO")
        ti.size = len(meta)
        t.addfile(ti, io.BytesIO(meta))
    return name
