"""rigscout/cli"""
