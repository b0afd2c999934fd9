#pragma once
// Test support: a network namespace of the test's own, joined to this one by a veth pair on
// a private /30 (10.213.N.0/30, N from the test's pid) -- how a fault test puts a worker "on
// another machine" whose link to the store server it can cut and restore. Made and removed by
// the test; no interface outside this machine is touched. Needs root (`ip netns`); where it
// cannot be made, failure() says why. Header-only.
#include <unistd.h>

#include <optional>
#include <string>
#include <vector>

#include "base/util/process.h"

namespace fathom::testing {

class NetworkLink {
 public:
  NetworkLink() {
    const std::string id = std::to_string(getpid() % 100000);
    const std::string subnet = "10.213." + std::to_string(getpid() % 250) + ".";
    ns_ = "fathom-test-" + id;
    host_side_ = "fth" + id;
    ns_side_ = "ftn" + id;
    host_address_ = subnet + "1";
    ns_address_ = subnet + "2";
    network_ = subnet + "0/30";
    const std::vector<std::vector<std::string>> steps = {
        {"ip", "netns", "add", ns_},
        {"ip", "link", "add", host_side_, "type", "veth", "peer", "name", ns_side_},
        {"ip", "link", "set", ns_side_, "netns", ns_},
        {"ip", "addr", "add", host_address_ + "/30", "dev", host_side_},
        {"ip", "link", "set", host_side_, "up"},
        {"ip", "netns", "exec", ns_, "ip", "addr", "add", ns_address_ + "/30", "dev", ns_side_},
        {"ip", "netns", "exec", ns_, "ip", "link", "set", ns_side_, "up"},
        {"ip", "netns", "exec", ns_, "ip", "link", "set", "lo", "up"},
    };
    for (const auto& step : steps) {
      const ProgramResult r = run_program(step, "", {}, 30);
      if (r.exit_code != 0) {
        failure_ = "cannot make a network namespace (" + step[0] + " " + step[1] + " " + step[2] +
                   ": " + r.err + r.out + "); needs root and iproute2";
        return;
      }
    }
  }
  ~NetworkLink() {
    run_program({"ip", "link", "del", host_side_}, "", {}, 30);  // removes both ends
    run_program({"ip", "netns", "del", ns_}, "", {}, 30);
  }
  NetworkLink(const NetworkLink&) = delete;
  NetworkLink& operator=(const NetworkLink&) = delete;

  const std::optional<std::string>& failure() const { return failure_; }
  const std::string& host_address() const { return host_address_; }  // this side's end
  const std::string& network() const { return network_; }
  // argv prefix that runs a program inside the namespace.
  std::vector<std::string> inside() const { return {"ip", "netns", "exec", ns_}; }
  // The link goes down: packets between the namespace and this side are dropped, with no reset
  // -- what a partition or a pulled cable looks like to both ends.
  bool cut() const { return run_program({"ip", "link", "set", host_side_, "down"}).exit_code == 0; }
  bool restore() const {
    return run_program({"ip", "link", "set", host_side_, "up"}).exit_code == 0;
  }

 private:
  std::optional<std::string> failure_;
  std::string ns_, host_side_, ns_side_, host_address_, ns_address_, network_;
};

}  // namespace fathom::testing
