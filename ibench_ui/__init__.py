"""The Gradio app: one module per tab."""
