"""rigscout: finds used GPU and GPU-server deals on eBay and ranks them per landed dollar."""

__version__ = "0.1.0"
