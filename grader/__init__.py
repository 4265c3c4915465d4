"""Build, check and grade the Annotated Transformer course exercises."""
