"""Phase 1 of a precision hunt: does the generated code of a good and a bad build differ?"""
