"""Project configuration for Daily Patience: settings, URL routing and the ASGI entry point."""
