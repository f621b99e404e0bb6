"""Check before doing: a model that cannot be reached is refused with its reason before a run or demo starts."""
import http.server
import json
import threading

from ibench_ui.model_check import reach
from runners.backends import load_backend


def test_unreachable_server_and_missing_folder_are_named(tmp_path):
    assert reach(load_backend("baseline:motion")) == ""
    assert reach(load_backend("hf:/nonexistent/model")) == "model folder /nonexistent/model not found (hub downloads are off)"
    why = reach(load_backend("openai:m@http://127.0.0.1:9/v1", timeout=1))
    assert why.startswith("cannot reach http://127.0.0.1:9/v1/models")


def test_a_live_openai_compatible_server_is_reachable():
    class H(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            body = json.dumps({"data": [{"id": "m"}]}).encode()
            self.send_response(200 if self.path == "/v1/models" else 404)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *a):
            pass

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{srv.server_address[1]}"
        assert reach(load_backend(f"openai:m@{url}/v1")) == ""
        assert reach(load_backend(f"openai:m@{url}/nope")) == f"{url}/nope/models answered HTTP 404"
    finally:
        srv.shutdown()
