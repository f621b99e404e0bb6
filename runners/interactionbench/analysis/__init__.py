"""The paper's analysis scripts (the reference repository's `analysis/`) as drop-ins: each module takes the
script's own arguments and writes the same files, byte for byte. Run through `python app.py analysis <script>`."""
