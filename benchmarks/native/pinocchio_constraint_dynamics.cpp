// Pinocchio's constraintDynamics per call in native C++ (no Python in the loop), on the states
// and loops bench_closed.py writes (see it): argv[1] the model (pin.Model.saveToBinary),
// argv[2] the loops, one per line "rows joint1 joint2" then each placement's rotation (row
// major) and translation, argv[3] the states, one per line q qd tau, argv[4] where the
// accelerations go (one line per state, to be checked against robodyn's).
#include <pinocchio/multibody.hpp>
#include <pinocchio/algorithm/constrained-dynamics.hpp>
#include <pinocchio/serialization.hpp>
#include <chrono>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <vector>
using namespace pinocchio;
typedef PINOCCHIO_STD_VECTOR_WITH_EIGEN_ALLOCATOR(RigidConstraintModel) ConstraintModels;
typedef PINOCCHIO_STD_VECTOR_WITH_EIGEN_ALLOCATOR(RigidConstraintData) ConstraintDatas;

static SE3 read_placement(std::istream & in) {
  Eigen::Matrix3d rotation; Eigen::Vector3d translation;
  for (int i = 0; i < 3; ++i) for (int j = 0; j < 3; ++j) in >> rotation(i, j);
  for (int i = 0; i < 3; ++i) in >> translation(i);
  return SE3(rotation, translation);
}

int main(int argc, char ** argv) {
  if (argc != 5) { std::cerr << "usage: model.bin loops.txt states.txt out.txt\n"; return 2; }
  Model model; model.loadFromBinary(argv[1]);
  Data data(model);
  ConstraintModels models; ConstraintDatas datas;
  std::ifstream loops(argv[2]);
  int rows, j1, j2;
  while (loops >> rows >> j1 >> j2) {
    SE3 p1 = read_placement(loops), p2 = read_placement(loops);
    models.push_back(RigidConstraintModel(rows == 6 ? CONTACT_6D : CONTACT_3D, model, j1, p1,
                                          j2, p2, LOCAL));
    datas.push_back(RigidConstraintData(models.back()));
  }
  std::ifstream states(argv[3]);
  std::vector<Eigen::VectorXd> Q, V, T;
  while (true) {
    Eigen::VectorXd q(model.nq), v(model.nv), tau(model.nv);
    for (int i = 0; i < model.nq; ++i) states >> q(i);
    for (int i = 0; i < model.nv; ++i) states >> v(i);
    for (int i = 0; i < model.nv; ++i) states >> tau(i);
    if (!states) break;
    Q.push_back(q); V.push_back(v); T.push_back(tau);
  }
  initConstraintDynamics(model, data, models, datas);
  ProximalSettings prox(1e-14, 1e-10, 50);
  const int n = static_cast<int>(Q.size());
  std::vector<Eigen::VectorXd> out(n);
  double best = 1e9;
  for (int repeat = 0; repeat < 7; ++repeat) {
    auto t0 = std::chrono::high_resolution_clock::now();
    for (int i = 0; i < n; ++i)
      out[i] = constraintDynamics(model, data, Q[i], V[i], T[i], models, datas, prox);
    auto t1 = std::chrono::high_resolution_clock::now();
    best = std::min(best, std::chrono::duration<double, std::micro>(t1 - t0).count() / n);
  }
  std::ofstream result(argv[4]);
  result << std::setprecision(17);
  for (const auto & a : out) { for (int i = 0; i < a.size(); ++i) result << a(i) << " "; result << "\n"; }
  std::cout << best << std::endl;  // microseconds per call, the best of 7 passes
  return 0;
}
