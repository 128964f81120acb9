// Does not compile: fails alone, the rest of the database is still checked.
void broken() { undeclaredFunction(); }
