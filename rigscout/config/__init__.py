"""rigscout/config"""
