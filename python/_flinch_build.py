"""_flinch_build.py -- the PEP 517 build backend of `pip install ./python`.

flinch.py is one module with no dependencies, so it is built with the
standard library alone: `pip install ./python` then works in any virtual
environment, offline, with or without build isolation, and needs neither
setuptools nor wheel (a venv has no `wheel`, and setuptools' backend then
failed with "invalid command 'bdist_wheel'"). pyproject.toml names this
file (build-backend, backend-path); the package's metadata is its
[project] table, read here.

Hooks: build_wheel, build_sdist and build_editable (pip install -e: a
wheel holding a .pth file that puts this directory on sys.path), plus the
get_requires_* hooks, which ask for nothing.
"""
import base64
import hashlib
import io
import os
import re
import tarfile
import time
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
MODULE = "flinch.py"
SDIST_FILES = ("pyproject.toml", MODULE, "_flinch_build.py")


def _project():
    """The [project] table's string values (and license's text) from
    pyproject.toml. Python before 3.11 has no TOML parser, so this reads
    the simple `key = "value"` lines the table is written in."""
    meta, section = {}, None
    with open(os.path.join(HERE, "pyproject.toml"), encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            m = re.match(r"^\[([^\]]+)\]$", line)
            if m:
                section = m.group(1).strip()
                continue
            if section != "project":
                continue
            m = re.match(r'^([A-Za-z][\w-]*)\s*=\s*"([^"]*)"$', line)
            if m:
                meta[m.group(1)] = m.group(2)
                continue
            m = re.match(r'^license\s*=\s*\{\s*text\s*=\s*"([^"]*)"\s*\}$', line)
            if m:
                meta["license"] = m.group(1)
    for key in ("name", "version"):
        if key not in meta:
            raise RuntimeError("pyproject.toml: [project] has no %s" % key)
    return meta


def _metadata(meta):
    lines = ["Metadata-Version: 2.1", "Name: " + meta["name"], "Version: " + meta["version"]]
    if "description" in meta:
        lines.append("Summary: " + meta["description"])
    if "requires-python" in meta:
        lines.append("Requires-Python: " + meta["requires-python"])
    if "license" in meta:
        lines.append("License: " + meta["license"])
    return "\n".join(lines) + "\n"


def _dist(meta):
    return "%s-%s" % (re.sub(r"[-_.]+", "_", meta["name"]).lower(), meta["version"])


def _record_hash(data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return "sha256=" + digest.decode("ascii")


def _wheel(wheel_directory, files):
    """A py3-none-any wheel of FILES ([(archive name, bytes)]) and its
    dist-info; returns its file name."""
    meta = _project()
    dist = _dist(meta)
    info = dist + ".dist-info"
    files = list(files) + [
        (info + "/METADATA", _metadata(meta).encode("utf-8")),
        (info + "/WHEEL", b"Wheel-Version: 1.0\nGenerator: _flinch_build\n"
                          b"Root-Is-Purelib: true\nTag: py3-none-any\n"),
    ]
    record = "".join("%s,%s,%d\n" % (name, _record_hash(data), len(data)) for name, data in files)
    files.append((info + "/RECORD", (record + info + "/RECORD,,\n").encode("utf-8")))
    name = dist + "-py3-none-any.whl"
    stamp = time.localtime(int(os.environ.get("SOURCE_DATE_EPOCH", time.time())))[:6]
    stamp = max(stamp, (1980, 1, 1, 0, 0, 0))
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w", zipfile.ZIP_DEFLATED) as z:
        for arc, data in files:
            zi = zipfile.ZipInfo(arc, date_time=stamp)
            zi.external_attr = 0o644 << 16
            zi.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(zi, data)
    return name


def _read(name):
    with open(os.path.join(HERE, name), "rb") as f:
        return f.read()


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    return _wheel(wheel_directory, [(MODULE, _read(MODULE))])


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    pth = (HERE + "\n").encode("utf-8")
    return _wheel(wheel_directory, [("_flinch_editable.pth", pth)])


def build_sdist(sdist_directory, config_settings=None):
    meta = _project()
    dist = _dist(meta)
    name = dist + ".tar.gz"
    mtime = int(os.environ.get("SOURCE_DATE_EPOCH", time.time()))
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz", format=tarfile.PAX_FORMAT) as t:
        members = [(f, _read(f)) for f in SDIST_FILES]
        members.append(("PKG-INFO", _metadata(meta).encode("utf-8")))
        for arc, data in members:
            ti = tarfile.TarInfo("%s/%s" % (dist, arc))
            ti.size, ti.mode, ti.mtime = len(data), 0o644, mtime
            t.addfile(ti, io.BytesIO(data))
    return name


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []
