"""What the binding's suites share: one context a module, and the library's test settings."""
import pytest

import tiledconv
from tiledconv import _native


@pytest.fixture(scope="module")
def ctx():
    with tiledconv.Context() as c:
        yield c


@pytest.fixture
def timed(ctx):
    """The module's context with timing on for the test (off again after: the default)."""
    ctx.timing = True
    yield ctx
    ctx.timing = False


@pytest.fixture
def tune():
    """tune("NAME=VALUE"): one of the library's study and test settings (staging-chunk,
    pinned-bytes, no-images, ...) for the rest of the test; every default comes back after."""
    yield _native.tune
    _native.tune(None)
