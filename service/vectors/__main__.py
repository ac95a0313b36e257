"""``python -m service.vectors``: the vectors command without Flask."""

from .command import main

main()
