"""Reading eBay: search-results pages in, frozen ``Listing`` records out.

``scraper.parse`` is the entry point; ``scraper.layouts`` holds one module per eBay markup
generation, ``scraper.money`` the price text rules and ``scraper.blocks`` the captcha checks.
"""
