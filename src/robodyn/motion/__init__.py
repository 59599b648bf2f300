"""Jobs on motions: trajectories, simulation, control laws, energy."""
