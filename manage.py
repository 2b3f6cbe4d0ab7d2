#!/usr/bin/env python
"""Run Django administrative tasks for Daily Patience."""

import os
import sys


def main() -> None:
    """Run the management command named on the command line."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
