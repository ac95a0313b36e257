# python_client_play.py imports the client generated during the test run: pytest's
# --doctest-modules must not import it at collection.
collect_ignore = ["python_client_play.py"]
