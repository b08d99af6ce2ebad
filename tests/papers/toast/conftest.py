import os
import sys

sys.path.insert(0, os.path.dirname(__file__))  # _toast_models: the tiny models of these tests
