import pytest

from tests.runners.conftest import ib_item
from recorder import Wrap
from runners.backends import load_backend
from runners.protocols import drive, get_protocol

pytestmark = pytest.mark.model


@pytest.mark.parametrize("which", ["tiny_llava", "tiny_qwen"])
def test_tiny_vlm_runs_through_the_real_transformers_path(which, request, clip):
    path = request.getfixturevalue(which)
    backend = load_backend(f"hf:{path}", max_new_tokens=6)
    proto = get_protocol("sliding", interval=4.0, max_frames=3)
    trace = drive(ib_item(clip, "B"), proto, backend)
    assert trace.n_polls == 3 and trace.failed is None and trace.n_errors == 0
    assert len(trace.poll_latencies) == 3
    for e in trace.emissions:  # random weights say anything; whatever they say is parsed and timed
        assert e.t in (4.0, 8.0, 12.0) and "\n" not in e.content
    # interleaved: a growing conversation with several image turns goes through the template too
    trace = drive(ib_item(clip, "A", q=3.0), get_protocol("interleaved", a_window=2.0, max_frames=4,
                                                          max_new_per_turn=2), backend)
    assert trace.n_polls == 3 and trace.failed is None


def test_frame_choice_is_identical_across_backends(tiny_llava, fake_server, clip, monkeypatch):
    monkeypatch.setenv("IBENCH_TEST_KEY", "k")
    from recorder import Recorder  # noqa: F401
    specs = ["baseline:silent", "baseline:motion", f"hf:{tiny_llava}",
             f"openai:scripted@{fake_server.base_url}", "plugin:" + __import__("recorder").__file__ + ":Recorder"]
    seen = {}
    for spec in specs:
        opts = {"api_key_env": "IBENCH_TEST_KEY"} if spec.startswith("openai") else (
            {"max_new_tokens": 4} if spec.startswith("hf") else {})
        backend = Wrap(load_backend(spec, **opts))
        drive(ib_item(clip, "A", q=5.0), get_protocol("cumulative", a_window=3.0, max_frames=6), backend)
        seen[spec] = backend.seen
    first = seen[specs[0]]
    assert len(first) == 4 and all(len(frames) == 6 for _, frames in first)
    for spec in specs[1:]:
        assert seen[spec] == first, spec
    # and the HTTP server got exactly those frames, as JPEG data URLs, 6 per request
    assert len(fake_server.requests) == 4
    assert all(sum(p["type"] == "image_url" for p in r["messages"][-1]["content"]) == 6 for r in fake_server.requests)


def test_text_only_model_gets_a_description_of_the_frames(tiny_text_llm, clip):
    backend = load_backend(f"hf:{tiny_text_llm / 'hf'}", max_new_tokens=6)
    seen = []
    trace = drive(ib_item(clip, "A", q=3.0), get_protocol("sliding", a_window=1.0, max_frames=4), backend,
                  on_decision=seen.append)
    assert backend.text_only is True and trace.n_polls == 2 and trace.n_errors == 0 and trace.failed is None
    assert [c.status for c in trace.calls] == ["ok", "ok"]
    user = backend.render_text(seen[0])[-1]["content"]
    # t = 3: stamps 0.25 ... 2.75 visible, the last 4 of them
    assert user.startswith("[4 video frame(s) at t = 1.25, 1.75, 2.25, 2.75 s are not shown: this model reads "
                           "text only]\nStream time: 3.0 s.")


def test_gguf_file_loads_through_transformers_and_answers_like_the_same_weights(tiny_text_llm, clip):
    from runners.protocols.base import Decision
    gguf_backend = load_backend(f"hf:{tiny_text_llm / 'tiny-llama-f32.gguf'}", max_new_tokens=8)
    st_backend = load_backend(f"hf:{tiny_text_llm / 'hf'}", max_new_tokens=8)
    d = Decision("x", "sliding", 1.0, [{"role": "system", "content": [{"type": "text", "text": "Be brief."}]},
                                       {"role": "user", "content": [{"type": "text", "text": "the red ball"}]}],
                 [], "the red ball")
    a, b = gguf_backend.respond(d), st_backend.respond(d)
    assert gguf_backend.text_only and type(gguf_backend._model).__name__ == "LlamaForCausalLM"
    assert a.raw["new_tokens"] == b.raw["new_tokens"] >= 1 and a.text == b.text  # greedy: the same weights
    trace = drive(ib_item(clip, "B"), get_protocol("sliding", interval=6.0), gguf_backend)
    assert trace.n_polls == 2 and trace.n_errors == 0


def test_missing_gguf_file_is_named():
    with pytest.raises(FileNotFoundError, match="nope.gguf"):
        load_backend("hf:/no/such/dir/nope.gguf").load()
