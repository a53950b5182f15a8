"""Real local servers the tests start on 127.0.0.1: a scripted OpenAI-compatible chat server with
fault injection, and a fake Hugging Face Hub."""
