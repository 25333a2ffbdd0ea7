// Uses the installed package: a 2 x 2 SpMM on the CPU, checked against hand-computed values.
#include <cstdio>
#include <spk/spk.hpp>
#include <vector>

int main() {
    const auto cpu = spk::Executor::cpu(1);
    // A = [[1, 2], [0, 3]], B = [[1, 1], [2, -1]]  ->  A B = [[5, -1], [6, -3]]
    const spk::Csr<double, int> a(cpu, 2, 2, std::vector<int>{0, 2, 3}, std::vector<int>{0, 1, 1}, std::vector<double>{1, 2, 3});
    const spk::Dense<double> b(cpu, 2, 2, std::vector<double>{1, 1, 2, -1});
    spk::Dense<double> c(cpu, 2, 2);
    spk::spmm(cpu, a.view(), b.view(), c.view());
    const std::vector<double> expected{5, -1, 6, -3};
    if (c.values().to_vector() != expected) {
        std::fprintf(stderr, "consumer: wrong product\n");
        return 1;
    }
    std::printf("consumer: spk::spmm through find_package(spk) is right\n");
    return 0;
}
