"""Alerts: match ranked deals against the user's rules, queue them in the outbox, send them.

rules -> outbox (``save_pending_alerts``) -> dispatch (``send_pending``) -> email / Discord.
Rendering (``render_email``, ``render_discord``) is pure; ``email`` and ``discord`` do the I/O.
"""
