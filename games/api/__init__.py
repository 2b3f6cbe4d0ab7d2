"""The REST API of docs/api.md: thin DRF views over the services and selectors."""
