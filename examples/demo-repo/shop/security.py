"""Input sanitizing for everything that ends up in HTML."""

import html
import re

_TAG = re.compile(r"<[^>]+>")


def strip_tags(text):
    """Remove HTML tags from user-provided text."""
    return _TAG.sub("", text)


def sanitize_user_input(text, max_length=200):
    """Sanitize user input before it is rendered: strip tags, escape, truncate."""
    cleaned = strip_tags(text or "")
    return html.escape(cleaned)[:max_length]


def require_login(view):
    """Decorator: refuse anonymous users."""

    def wrapper(request, *args, **kwargs):
        if request.user is None:
            raise PermissionError("login required")
        return view(request, *args, **kwargs)

    return wrapper
