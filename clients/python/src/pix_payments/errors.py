"""What the client raises: the API's refusals, no answer at all, and webhooks that are not ours."""

from __future__ import annotations


class PixError(Exception):
    """The base of every error this package raises."""


class PixApiError(PixError):
    """The API answered with an error: its HTTP status and its message (pt-BR, as the API words it)."""

    def __init__(self, status_code: int, message: str) -> None:
        super().__init__(message)
        self.status_code = status_code
        self.message = message

    def __repr__(self) -> str:
        return f"PixApiError(status_code={self.status_code!r}, message={self.message!r})"


class PixConnectionError(PixError):
    """No answer came: the connection failed or the request timed out (after the retries, for creates)."""


class WebhookVerificationError(PixError):
    """A webhook not signed with the secret, too old or too new, or not an event of this API."""
