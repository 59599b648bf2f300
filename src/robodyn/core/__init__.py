"""Foundations every layer uses: errors and warnings, scalar 3-vector algebra."""
