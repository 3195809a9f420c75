"""The Firefox driver's reading of the page's errors (course_tools/site/drivers.py), without a
browser: which of Firefox's console words are kept apart as its own service-worker failures
(INTERCEPTION_FAILED) and which stay the page's errors."""
import pytest

from course_tools.site import drivers

SEEN_ON_CI = ("Failed to load \u2018http://127.0.0.1:48983/build/schemas/all_federated.json\u2019."
              " A ServiceWorker intercepted the request and encountered an unexpected error.")


def test_firefox_failing_an_interception_is_kept_apart():
    assert drivers.INTERCEPTION_FAILED.search(SEEN_ON_CI)


@pytest.mark.parametrize("text", [
    # the server resetting the connection (measured with a handler that shuts its socket)
    "Failed to load \u2018http://127.0.0.1:39097/lab/build/schemas/all_federated.json?slow=0\u2019."
    " A ServiceWorker passed a promise to FetchEvent.respondWith() that rejected with "
    "\u2018TypeError: NetworkError when attempting to fetch resource.\u2019.",
    # the service worker stopped mid-request, as the page sees it
    "TypeError: NetworkError when attempting to fetch resource.",
    # the words inside a longer error, or a page's own message quoting them
    "Uncaught Error: " + SEEN_ON_CI,
    SEEN_ON_CI + " And then the course failed.",
])
def test_other_failures_stay_the_pages_errors(text):
    assert not drivers.INTERCEPTION_FAILED.search(text)
