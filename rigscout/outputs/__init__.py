"""rigscout/outputs"""
