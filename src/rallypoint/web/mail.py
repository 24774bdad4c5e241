"""E-mail a seat when it is their move (issue 22; ``serve --smtp-host``, docs/hosting.md).

A player opts in per campaign on its seats page (:meth:`SeatBook.set_mail`). After a seat
records an event, every other seat that asked is told, in a background thread, if it is now
their move as their own page would say it (:func:`rallypoint.web.live.move_of`, from what
their seat may see). One mail until they look again: a seat whose last mail came after its
last look (``seen_marks``) gets no other. The mail names the campaign, says it is their move
and links to the page; it carries no state, summary, roll or secret. Sending never blocks nor
fails a command: a broken mail server is logged (``rallypoint.mail``) and play goes on.
"""

from __future__ import annotations

import logging
import os
import smtplib
from concurrent.futures import ThreadPoolExecutor
from email.message import EmailMessage
from typing import TYPE_CHECKING

from rallypoint.core.visibility import Viewer

if TYPE_CHECKING:
    from rallypoint.web.service import Service
    from rallypoint.web.settings import WebSettings

LOG = logging.getLogger("rallypoint.mail")
PASSWORD_ENV = "RALLYPOINT_SMTP_PASSWORD"
"""Where the SMTP password is read from (never an option: it would show in ``ps``)."""
TIMEOUT = 10.0
"""Seconds a mail server has to answer each step."""


class Mailer:
    """Sends "your move" mails for one web app.

    Args:
        settings: The server's settings (``smtp_*``, ``public_url``).
        service: The app's service (its seat book, campaigns and page views).
    """

    def __init__(self, settings: WebSettings, service: Service) -> None:
        self.settings = settings
        self.service = service
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rallypoint-mail")

    def after_write(self, campaign_id: str, by: Viewer) -> None:
        """A seat (``by``) recorded an event: tell the others whose move it now is, later."""
        self._pool.submit(self._tell, campaign_id, by)

    def wait(self) -> None:
        """Wait for every mail asked for so far (tests; a server shutting down)."""
        self._pool.submit(lambda: None).result()

    def _tell(self, campaign_id: str, by: Viewer) -> None:
        try:
            self._tell_all(campaign_id, by)
        except Exception:  # a mail must never break play; the reason goes to the log
            LOG.exception("could not send the your-move mails of campaign %s", campaign_id)

    def _tell_all(self, campaign_id: str, by: Viewer) -> None:
        from rallypoint.web.live import move_of
        from rallypoint.web.news import Turn
        from rallypoint.web.rulesets import view_of

        book = self.service.book
        if book is None:
            return
        campaign = self.service.session.load(campaign_id)
        name = self.service.session.resolve(campaign_id).name
        for account, address, mailed in book.mail_wanted(campaign_id):
            viewer = book.viewer(campaign_id, account)
            if viewer is None or (viewer.side == by.side and viewer.role == by.role):
                continue  # no seat any more, or the seat that just acted
            if mailed is not None and (book.seen(campaign_id, account) or 0) < mailed:
                continue  # mailed already and not looked since
            context = view_of(campaign.ruleset.name).context(campaign, viewer=viewer)
            if move_of(campaign, viewer, context).turn is not Turn.YOURS:
                continue
            self.send(address, your_move(name, campaign.ruleset.title, campaign.version,
                                         f"{self.base_url()}/c/{campaign_id}"))
            book.mailed(campaign_id, account, campaign.version)

    def base_url(self) -> str:
        """Where players reach this server (``--public-url``, else the bound address)."""
        if self.settings.public_url:
            return self.settings.public_url.rstrip("/")
        return f"http://{self.settings.host}:{self.settings.port}"

    def send(self, to: str, message: EmailMessage) -> None:
        """Send one mail through the configured SMTP server (STARTTLS and a login if set)."""
        message["From"] = self.settings.smtp_from
        message["To"] = to
        host = self.settings.smtp_host or "localhost"
        with smtplib.SMTP(host, self.settings.smtp_port, timeout=TIMEOUT) as smtp:
            if self.settings.smtp_starttls:
                smtp.starttls()
            if self.settings.smtp_user:
                smtp.login(self.settings.smtp_user, os.environ.get(PASSWORD_ENV, ""))
            smtp.send_message(message)


def your_move(name: str, ruleset: str, version: int, link: str) -> EmailMessage:
    """The mail: whose move, the campaign and the link, nothing of its state."""
    # A campaign name is the players' own text: it goes into a header, so no line breaks.
    plain = " ".join(name.split())
    message = EmailMessage()
    message["Subject"] = f"rallypoint: your move in {plain}"
    message.set_content(
        f"It is your move in {plain} ({ruleset}), at version {version}.\n\n"
        f"Open the campaign: {link}\n\n"
        "You get this mail because you asked for one when it is your move; you get no other\n"
        f"until you have looked. Turn it off on the campaign's seats page: {link}/seats\n")
    return message
