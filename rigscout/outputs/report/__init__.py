"""The morning report: a static HTML site of today's deals, price history and run health.

``build.write_report`` loads what the page shows (``load.py``), scores what changed
(``changes.py``), draws the charts as inline SVG (``charts.py``) and renders one Jinja2
template with autoescaping (``page.py``). Configured by ``[report]`` (``settings.py``).
"""
