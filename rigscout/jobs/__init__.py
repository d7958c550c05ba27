"""rigscout/jobs"""
