"""The REST API of api.md: thin DRF views over the services and selectors."""
