"""The tests' one helper package: local stand-ins for outside services (eBay's pages and Browse
API, an SMTP server, a webhook endpoint, an in-memory request store), the records and rows the
tests build (deals, ranking rows, report data), the CLI run in a subprocess, and the throwaway
PostgreSQL databases (``db.py``, loaded by ``tests/conftest.py``)."""
