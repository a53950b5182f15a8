"""A fake Hugging Face Hub on 127.0.0.1 (stdlib `http.server`), enough for `huggingface_hub` 2.x to
create repos, commit files (regular and LFS) and read them back, and for `datasets` to
`load_dataset("org/name", config)` from it. Clients set `HF_ENDPOINT=http://127.0.0.1:<port>`,
`HF_HUB_DISABLE_XET=1` (no Xet storage here) and any `HF_TOKEN`.

Repos live under `--storage/<type>s/<org>/<name>/` as plain files, one revision (`main`), no auth.
Every request's Authorization header is appended to `<storage>/auth.log`, so tests can check the
token went over the wire without being written anywhere else.

Commits honour `parentCommit` as the Hub does (compare-and-swap): a commit whose header names a
parent other than the branch head is refused with 412 "A commit has happened since. Please refresh
and try again." and changes nothing. Each commit's outcome is appended to `<storage>/commits.log`
(`<status> <type>/<repo> <parent or -> <new sha or ->`). `--hold-commits N` makes the first N commit
requests wait for each other (up to 30 s) before any is applied, so concurrent pushes really race.

Endpoints (spec/hf-ecosystem.md §3): POST /api/repos/create, /api/validate-yaml,
/api/{t}s/{id}/preupload|commit|paths-info/{rev}; LFS batch /{prefix}{id}.git/info/lfs/objects/batch
and the upload PUT; GET /api/{t}s/{id}[/revision/{rev}], /api/{t}s/{id}/tree/{rev}[/{path}];
GET|HEAD /{prefix}{id}/resolve/{rev}/{path} (models have no prefix). Unknown repos and files answer
404 with `X-Error-Code: RepoNotFound|EntryNotFound`, as the Hub does.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import re
import shutil
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

LOCK = threading.Lock()
REPO_TYPES = {"models": "model", "datasets": "dataset", "spaces": "space"}


class Hub:
    def __init__(self, storage: Path):
        self.storage = storage
        self.blobs = storage / ".lfs"
        self.blobs.mkdir(parents=True, exist_ok=True)
        self.commits: dict[str, int] = {}
        self.barrier: threading.Barrier | None = None
        self.held = 0

    def repo_dir(self, kind: str, repo_id: str) -> Path:
        return self.storage / f"{kind}s" / repo_id

    def sha(self, kind: str, repo_id: str) -> str:
        n = self.commits.get(f"{kind}/{repo_id}", 0)
        return hashlib.sha1(f"{kind}/{repo_id}/{n}".encode()).hexdigest()

    def files(self, kind: str, repo_id: str) -> list[Path]:
        root = self.repo_dir(kind, repo_id)
        return sorted(p for p in root.rglob("*") if p.is_file())


def git_blob_sha(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


class Handler(BaseHTTPRequestHandler):
    hub: Hub
    protocol_version = "HTTP/1.1"

    def log_message(self, *args) -> None:  # quiet
        pass

    # ------------------------------------------------------------------ plumbing
    def _auth_log(self) -> None:
        auth = self.headers.get("Authorization")
        with LOCK, open(self.hub.storage / "auth.log", "a") as log:
            log.write(f"{self.command} {self.path} {auth}\n")

    def _body(self) -> bytes:
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _send(self, status: int, body: bytes = b"", headers: dict | None = None, content_type: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, status: int, value, headers: dict | None = None) -> None:
        self._send(status, json.dumps(value).encode(), headers)

    def _not_found(self, code: str, message: str) -> None:
        self._json(404, {"error": message}, {"X-Error-Code": code, "X-Error-Message": message})

    def _repo(self, kind: str, repo_id: str) -> bool:
        if not self.hub.repo_dir(kind, repo_id).is_dir():
            self._not_found("RepoNotFound", f"Repository Not Found for url: {self.path}")
            return False
        return True

    # ------------------------------------------------------------------ routes
    def do_HEAD(self) -> None:
        self.do_GET()

    def do_GET(self) -> None:
        self._auth_log()
        path = unquote(urlsplit(self.path).path)
        query = parse_qs(urlsplit(self.path).query)
        m = re.fullmatch(r"/api/(models|datasets|spaces)/(.+?)/tree/([^/]+)(?:/(.*))?", path)
        if m:
            return self.tree(REPO_TYPES[m[1]], m[2], m[4] or "", query.get("recursive", ["false"])[0].lower() == "true")
        m = re.fullmatch(r"/api/(models|datasets|spaces)/(.+?)(?:/revision/([^/]+))?", path)
        if m:
            return self.info(REPO_TYPES[m[1]], m[2])
        m = re.fullmatch(r"/(?:(datasets|spaces)/)?(.+?)/resolve/([^/]+)/(.+)", path)
        if m:
            return self.resolve(REPO_TYPES.get(m[1] or "models", "model"), m[2], m[4])
        self._not_found("EntryNotFound", f"no route GET {path}")

    def do_POST(self) -> None:
        self._auth_log()
        path = unquote(urlsplit(self.path).path)
        body = self._body()
        if path == "/api/repos/create":
            return self.create(json.loads(body))
        if path == "/api/validate-yaml":
            return self._json(200, {"errors": [], "warnings": []})
        m = re.fullmatch(r"/api/(models|datasets|spaces)/(.+?)/(preupload|commit|paths-info)/([^/]+)", path)
        if m:
            kind, repo_id, action = REPO_TYPES[m[1]], m[2], m[3]
            if not self._repo(kind, repo_id):
                return
            return getattr(self, action.replace("-", "_"))(kind, repo_id, body)
        m = re.fullmatch(r"/(?:(datasets|spaces)/)?(.+?)\.git/info/lfs/objects/batch", path)
        if m:
            return self.lfs_batch(json.loads(body))
        self._not_found("EntryNotFound", f"no route POST {path}")

    def do_PUT(self) -> None:
        self._auth_log()
        path = urlsplit(self.path).path
        body = self._body()
        m = re.fullmatch(r"/lfs-upload/([0-9a-f]{64})", path)
        if not m:
            return self._not_found("EntryNotFound", f"no route PUT {path}")
        if hashlib.sha256(body).hexdigest() != m[1]:
            return self._json(400, {"error": "sha256 mismatch"})
        (self.hub.blobs / m[1]).write_bytes(body)
        self._send(200, b"")

    # ------------------------------------------------------------------ handlers
    def create(self, payload: dict) -> None:
        repo_id = f"{payload['organization']}/{payload['name']}" if payload.get("organization") else payload["name"]
        kind = payload.get("type") or "model"
        root = self.hub.repo_dir(kind, repo_id)
        prefix = "" if kind == "model" else f"{kind}s/"
        url = f"http://{self.headers['Host']}/{prefix}{repo_id}"
        with LOCK:
            exists = root.is_dir()
            root.mkdir(parents=True, exist_ok=True)
        if exists:
            return self._json(409, {"error": "You already created this repo", "url": url})
        self._json(200, {"url": url, "name": repo_id})

    def info(self, kind: str, repo_id: str) -> None:
        if not self._repo(kind, repo_id):
            return
        root = self.hub.repo_dir(kind, repo_id)
        siblings = [{"rfilename": p.relative_to(root).as_posix()} for p in self.hub.files(kind, repo_id)]
        self._json(200, {
            "id": repo_id, "_id": hashlib.sha1(repo_id.encode()).hexdigest()[:24], "author": repo_id.split("/")[0],
            "sha": self.hub.sha(kind, repo_id), "private": False, "disabled": False, "gated": False,
            "downloads": 0, "likes": 0, "tags": [], "siblings": siblings,
            "lastModified": "2026-01-01T00:00:00.000Z", "createdAt": "2026-01-01T00:00:00.000Z",
        })

    def _entry(self, kind: str, repo_id: str, file: Path) -> dict:
        root = self.hub.repo_dir(kind, repo_id)
        data = file.read_bytes()
        entry = {"type": "file", "oid": git_blob_sha(data), "size": len(data), "path": file.relative_to(root).as_posix()}
        if file.suffix == ".parquet":
            entry["lfs"] = {"oid": hashlib.sha256(data).hexdigest(), "size": len(data), "pointerSize": 130}
        return entry

    def tree(self, kind: str, repo_id: str, sub: str, recursive: bool) -> None:
        if not self._repo(kind, repo_id):
            return
        root = self.hub.repo_dir(kind, repo_id)
        base = root / sub if sub else root
        if not base.is_dir():
            return self._not_found("EntryNotFound", f"{sub} does not exist on main")
        out = []
        for p in sorted(base.rglob("*") if recursive else base.iterdir()):
            rel = p.relative_to(root).as_posix()
            if p.is_dir():
                out.append({"type": "directory", "oid": hashlib.sha1(rel.encode()).hexdigest(), "size": 0, "path": rel})
            else:
                out.append(self._entry(kind, repo_id, p))
        self._json(200, out)

    def paths_info(self, kind: str, repo_id: str, body: bytes) -> None:
        content_type = self.headers.get("Content-Type", "")
        if "json" in content_type:
            paths = json.loads(body).get("paths", [])
        else:
            paths = parse_qs(body.decode()).get("paths", [])
        root = self.hub.repo_dir(kind, repo_id)
        out = []
        for rel in paths:
            p = root / rel
            if p.is_file():
                out.append(self._entry(kind, repo_id, p))
            elif p.is_dir():
                out.append({"type": "directory", "oid": hashlib.sha1(rel.encode()).hexdigest(), "size": 0, "path": rel})
        self._json(200, out)

    def preupload(self, kind: str, repo_id: str, body: bytes) -> None:
        files = json.loads(body)["files"]
        # Parquet goes through LFS (datasets deletes its temp shard after preupload; "regular" would
        # make it re-read a deleted file), text files are committed inline.
        self._json(200, {"files": [
            {"path": f["path"], "uploadMode": "lfs" if f["path"].endswith(".parquet") else "regular", "shouldIgnore": False, "oid": None}
            for f in files
        ]})

    def lfs_batch(self, payload: dict) -> None:
        host = self.headers["Host"]
        objects = []
        for obj in payload.get("objects", []):
            entry = {"oid": obj["oid"], "size": obj["size"]}
            if not (self.hub.blobs / obj["oid"]).exists():
                entry["actions"] = {"upload": {"href": f"http://{host}/lfs-upload/{obj['oid']}", "header": {}}}
            objects.append(entry)
        self._json(200, {"transfer": "basic", "objects": objects})

    def commit(self, kind: str, repo_id: str, body: bytes) -> None:
        root = self.hub.repo_dir(kind, repo_id)
        lines = [json.loads(line) for line in body.splitlines() if line.strip()]
        parent = next((item["value"].get("parentCommit") for item in lines if item["key"] == "header"), None)
        with LOCK:
            barrier = self.hub.barrier if self.hub.held > 0 else None
            self.hub.held -= 1
        if barrier is not None:
            try:
                barrier.wait(timeout=30)
            except threading.BrokenBarrierError:
                pass
        counter = f"{kind}/{repo_id}"
        with LOCK:
            head = self.hub.sha(kind, repo_id)
            if parent is not None and parent != head:
                self._commit_log(f"412 {counter} {parent} -")
                return self._json(412, {"error": "A commit has happened since. Please refresh and try again."},
                                  {"X-Error-Message": "A commit has happened since. Please refresh and try again."})
            for item in lines:
                key, value = item["key"], item["value"]
                if key == "file":
                    target = root / value["path"]
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_bytes(base64.b64decode(value["content"]) if value.get("encoding") == "base64" else value["content"].encode())
                elif key == "lfsFile":
                    blob = self.hub.blobs / value["oid"]
                    if not blob.exists():
                        return self._json(422, {"error": f"LFS object {value['oid']} was never uploaded"})
                    target = root / value["path"]
                    target.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(blob, target)
                elif key == "deletedFile":
                    (root / value["path"]).unlink(missing_ok=True)
                elif key == "deletedFolder":
                    shutil.rmtree(root / value["path"], ignore_errors=True)
            self.hub.commits[counter] = self.hub.commits.get(counter, 0) + 1
            sha = self.hub.sha(kind, repo_id)
            self._commit_log(f"200 {counter} {parent or '-'} {sha}")
        prefix = "" if kind == "model" else f"{kind}s/"
        self._json(200, {"success": True, "commitOid": sha, "commitUrl": f"http://{self.headers['Host']}/{prefix}{repo_id}/commit/{sha}"})

    def _commit_log(self, line: str) -> None:  # called under LOCK
        with open(self.hub.storage / "commits.log", "a") as log:
            log.write(line + "\n")

    def resolve(self, kind: str, repo_id: str, rel: str) -> None:
        if not self.hub.repo_dir(kind, repo_id).is_dir():
            return self._not_found("RepoNotFound", f"Repository Not Found for url: {self.path}")
        target = self.hub.repo_dir(kind, repo_id) / rel
        if not target.is_file():
            return self._not_found("EntryNotFound", f"Entry Not Found for url: {self.path}")
        data = target.read_bytes()
        etag = hashlib.sha256(data).hexdigest() if target.suffix == ".parquet" else git_blob_sha(data)
        headers = {"ETag": f'"{etag}"', "X-Repo-Commit": self.hub.sha(kind, repo_id), "Accept-Ranges": "bytes"}
        if target.suffix == ".parquet":
            headers["X-Linked-Etag"] = f'"{etag}"'
            headers["X-Linked-Size"] = str(len(data))
        self._send(200, data, headers, content_type="application/octet-stream")



def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--storage", required=True, type=Path)
    parser.add_argument("--hold-commits", type=int, default=0, help="the first N commits wait for each other")
    args = parser.parse_args(argv)
    args.storage.mkdir(parents=True, exist_ok=True)
    Handler.hub = Hub(args.storage)
    if args.hold_commits > 1:
        Handler.hub.barrier = threading.Barrier(args.hold_commits)
        Handler.hub.held = args.hold_commits
    ThreadingHTTPServer.request_queue_size = 64
    ThreadingHTTPServer.daemon_threads = True
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(f"PORT {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
