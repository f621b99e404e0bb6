"""Per-app state handed to every tab: the store and the loaded datasets. Built once in `build_app`;
nothing lives at module level, because Gradio shares module globals across all users."""
from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from annotation import auth
from annotation.dataset import Dataset
from annotation.loaders import demo_dir, load
from annotation import registry
from annotation.model import Item
from annotation.store import Store
from ibench_ui.models import ModelRegistry

LOCAL_USER = auth.User("local", "admin")


@dataclass
class AppContext:
    """The store plus one dataset folder per benchmark (the embedded demo unless overridden)."""
    store: Store
    data_dirs: dict[str, Path] = field(default_factory=dict)
    asr_model: Optional[str] = None
    models: ModelRegistry = field(default_factory=ModelRegistry.default)
    loopback: bool = True  # bound to 127.0.0.1 only (serve sets it); with no accounts that is the local single user
    ray: Optional[str] = None  # serve --ray: the Runs tab's runs go to this (joined) Ray cluster
    ray_media: Optional[str] = None
    signin: auth.SignInSettings = field(default_factory=auth.SignInSettings)  # cookie lifetimes, lockout
    base_url: str = ""  # the public URL (serve --base-url): an https one makes the cookies Secure
    _datasets: dict[str, Dataset] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self):
        for b in registry.names():
            self.data_dirs.setdefault(b, demo_dir(b))

    def dataset(self, benchmark: str) -> Dataset:
        """The benchmark's dataset, loaded once and reused; raises if that benchmark is not loaded."""
        if benchmark not in self.data_dirs:
            raise KeyError(f"benchmark {benchmark!r} is not loaded; available: {', '.join(self.data_dirs)}")
        with self._lock:
            if benchmark not in self._datasets:
                self._datasets[benchmark] = load(benchmark, self.data_dirs[benchmark])
            return self._datasets[benchmark]

    def item(self, benchmark: str, item_id: str) -> Item:
        return self.dataset(benchmark).get(item_id)

    def media_roots(self) -> list[str]:
        """Folders the web server may serve media from (each dataset's root, nothing else)."""
        return sorted({str(Path(p).resolve()) for p in self.data_dirs.values()})

    def local_user(self) -> Optional[auth.User]:
        """The single person on their own machine (no accounts, loopback bind) acts as admin without
        signing in; once an account exists, or the app listens beyond loopback, everyone signs in."""
        if self.loopback and not self.store.has_users():
            return LOCAL_USER
        return None

    def require(self, token: Optional[str], roles=auth.ANYONE) -> auth.User:
        """Who is calling, checked on the server: the local user, or the user of the sign-in session id (from
        the request's cookie, ibench_ui.auth_routes) if their role is in `roles`; PermissionError otherwise."""
        u = self.local_user()
        return u if u is not None else auth.require(self.store, token, roles)

    def allowed(self, token: Optional[str], roles=auth.ANYONE) -> Optional[auth.User]:
        try:
            return self.require(token, roles)
        except PermissionError:
            return None

    def benchmarks(self) -> list[str]:
        return [b for b in registry.names() if b in self.data_dirs]


def find_item(ctx: AppContext, benchmark: str, item_id: str) -> Optional[Item]:
    try:
        return ctx.item(benchmark, item_id)
    except KeyError:
        return None
