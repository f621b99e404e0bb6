"""The model registry: the browser names a configured model; specs, URLs and key names are checked
when the admin's file is read, and nothing a page sends is ever parsed as a spec."""
import pytest

from ibench_ui.models import DEFAULT_MODELS, ModelRegistry, UnknownModel

GOOD = """
allowed_base_urls = ["http://127.0.0.1:8000/v1"]
allowed_key_envs = ["LOCAL_KEY"]

[models]
motion = "baseline:motion"

[models.local-llm]
spec = "openai:qwen@http://127.0.0.1:8000/v1"
options = { api_key_env = "LOCAL_KEY", timeout = 30 }

[judges]
lex = "lexical"
local = "openai:qwen@http://127.0.0.1:8000/v1?key_env=LOCAL_KEY"
"""


def test_a_registry_file_maps_names_to_specs_and_options(tmp_path):
    f = tmp_path / "models.toml"
    f.write_text(GOOD)
    reg = ModelRegistry.load(f)
    assert reg.names() == ["motion", "local-llm"]
    e = reg.resolve("local-llm")
    assert (e.spec, e.options) == ("openai:qwen@http://127.0.0.1:8000/v1", {"api_key_env": "LOCAL_KEY", "timeout": 30})
    assert reg.options_for_spec("openai:qwen@http://127.0.0.1:8000/v1")["api_key_env"] == "LOCAL_KEY"
    assert reg.resolve_judge("lex") == "lexical" and reg.resolve_judge("") is None


@pytest.mark.parametrize("hostile", ["plugin:subprocess:Popen", "plugin:os:system", "hf:/etc", "openai:m@http://evil/v1",
                                     "baseline:periodic:7", " motion ; id", None, 3, ["motion"], {"spec": "x"}, "x" * 10000])
def test_anything_but_a_configured_name_is_refused(tmp_path, hostile):
    f = tmp_path / "models.toml"
    f.write_text(GOOD)
    with pytest.raises(UnknownModel):
        ModelRegistry.load(f).resolve(hostile)
    if hostile is not None:  # no judge (None or "") means the benchmark's reference default
        with pytest.raises(UnknownModel):
            ModelRegistry.load(f).resolve_judge(hostile)


def test_the_default_registry_is_the_weight_free_baselines():
    reg = ModelRegistry.default()
    assert reg.names() == list(DEFAULT_MODELS) and all(n.startswith("baseline:") for n in reg.names())
    assert reg.resolve("baseline:motion").spec == "baseline:motion" and reg.judge_names() == []
    with pytest.raises(UnknownModel):
        reg.resolve("plugin:os:system")


@pytest.mark.parametrize("text, field", [
    ('[models]\nx = "openai:m@http://evil.example/v1"', "allowed_base_urls"),
    ('allowed_base_urls = ["http://127.0.0.1:8000/v1"]\n[models.x]\nspec = "openai:m@http://127.0.0.1:8000/v1"\n'
     'options = { api_key_env = "AWS_SECRET_ACCESS_KEY" }', "allowed_key_envs"),
    ('[models]\nx = "shell:id"', "must start with"),
    ('[models]\n"bad name!" = "baseline:motion"', "model name"),
    ('[judges]\nj = "openai:m@http://evil/v1"\n[models]\nx = "baseline:motion"', "judges.j"),
    ('[models]\n', "at least one model"),
    ('modles = 1', "unknown key"),
    ('[models\n', "not valid TOML"),
])
def test_a_bad_registry_file_is_refused_naming_the_field(tmp_path, text, field):
    f = tmp_path / "models.toml"
    f.write_text(text)
    with pytest.raises(ValueError, match=field) as info:
        ModelRegistry.load(f)
    assert str(f) in str(info.value)


@pytest.mark.parametrize("model, judge, options", [
    ("plugin:os:system", "", ""), ("hf:/etc", "", ""), ("openai:m@http://127.0.0.1:9/v1", "", ""),
    ("baseline:motion", "openai:m@http://127.0.0.1:9/v1?key_env=PATH", ""),
    ("baseline:motion", "", "api_key_env=PATH"),
])
def test_start_run_itself_refuses_specs_judges_and_options_from_the_page(tmp_path, model, judge, options):
    """Below the Dropdown's own check: start_run reads names only, whatever reaches it."""
    from annotation.store import Store
    from ibench_ui.context import AppContext
    from ibench_ui.runs_service import RunRegistry, start_run
    ctx = AppContext(store=Store(tmp_path / "s.sqlite"))
    with pytest.raises(ValueError):
        start_run(ctx, RunRegistry(), "interactionbench", model, "", 0, 1, judge, options)
    assert ctx.store.runs() == []


def test_a_realtime_model_needs_its_whole_ws_url_listed():
    ok = {"allowed_base_urls": ["ws://127.0.0.1:9000/v1/realtime"], "allowed_key_envs": ["RT_KEY"],
          "models": {"duplex": {"spec": "realtime:ws://127.0.0.1:9000/v1/realtime",
                                "options": {"model": "scripted", "api_key_env": "RT_KEY"}}}}
    reg = ModelRegistry.from_dict(ok)
    assert reg.resolve("duplex").spec == "realtime:ws://127.0.0.1:9000/v1/realtime"
    assert reg.options_for_spec("realtime:ws://127.0.0.1:9000/v1/realtime") == {"model": "scripted",
                                                                               "api_key_env": "RT_KEY"}
    for spec in ("realtime:ws://evil.example/v1/realtime", "realtime:ws://127.0.0.1:9000/v1/realtime/other",
                 "realtime:ws://127.0.0.1:9000", "realtime:"):
        with pytest.raises(ValueError, match="not in allowed_base_urls"):
            ModelRegistry.from_dict({**ok, "models": {"x": spec}})
    with pytest.raises(ValueError, match="allowed_base_urls must be"):
        ModelRegistry.from_dict({**ok, "allowed_base_urls": ["file:///etc/passwd"]})


def test_an_openai_entry_without_a_key_variable_sends_no_key(tmp_path, monkeypatch):
    """Without api_key_env the backend is built with no variable at all, so $OPENAI_API_KEY (not listed in
    allowed_key_envs) never leaves the server; the client sends the placeholder key a local server ignores."""
    import http.server
    import threading

    from runners.backends import load_backend

    seen = []

    class Listener(http.server.BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 - http.server's name
            seen.append(self.headers.get("Authorization"))
            self.send_response(500)
            self.end_headers()

        def log_message(self, *a):
            pass

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Listener)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{srv.server_address[1]}/v1"
    f = tmp_path / "models.toml"
    f.write_text(f'allowed_base_urls = ["{url}"]\n\n[models]\nbare = "openai:m@{url}"\n')
    monkeypatch.setenv("OPENAI_API_KEY", "sk-must-not-leave")
    try:
        reg = ModelRegistry.load(f)
        assert reg.resolve("bare").options == {"api_key_env": None}
        backend = load_backend(f"openai:m@{url}", **reg.options_for_spec(f"openai:m@{url}"))
        try:
            backend._get_client(url).chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}])
        except Exception:  # noqa: BLE001 - the listener answers 500; only the request's headers matter
            pass
    finally:
        srv.shutdown()
    assert seen and all("sk-must-not-leave" not in (h or "") for h in seen), seen
