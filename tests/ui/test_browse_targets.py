"""Browse shows target times to everyone until annotation accounts exist; then only to reviewers and admins."""
from annotation import auth
from annotation.store import Store
from ibench_ui.browse import _details_html, targets_visible
from ibench_ui.context import AppContext


def test_targets_hidden_from_annotators_once_accounts_exist(tmp_path):
    ctx = AppContext(store=Store(tmp_path / "db.sqlite"))
    item = ctx.dataset("interactionbench").get("ball_counter#0")
    assert targets_visible(ctx, "") and 'id="item-targets"' in _details_html(ctx, "", item)
    auth.create_user(ctx.store, "ann", "annotator", "pw-ann-123")
    auth.create_user(ctx.store, "rev", "reviewer", "pw-rev-123")
    assert not targets_visible(ctx, "")
    ann = auth.sign_in(ctx.store, "ann", "pw-ann-123")
    rev = auth.sign_in(ctx.store, "rev", "pw-rev-123")
    hidden = _details_html(ctx, ann, item)
    assert "item-targets" not in hidden and "targets-hidden" in hidden
    assert str(item.targets[0].anchor) not in hidden.replace(item.request.text, "")
    assert 'id="item-targets"' in _details_html(ctx, rev, item)
