#include <cstdio>
int main() { std::puts("jitconv"); return 0; }
