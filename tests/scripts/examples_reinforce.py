"""pytorch/examples' reinforcement_learning/reinforce.py in miniature: a policy network with
dropout, torch.distributions.Categorical, log_prob, discounted returns normalised with
eps = np.finfo(np.float32).eps.item(), saved log-probabilities and rewards on the policy, and
Adam. Gym's CartPole is replaced by a toy corridor environment written here, seeded with
NumPy; the running reward is printed each episode."""
import argparse

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.distributions import Categorical


class Corridor:
    """Walk left or right along a corridor; the goal is at the right end. A small noise term
    in the observation comes from the environment's own NumPy generator."""

    def __init__(self, length=6, max_steps=20):
        self.length = length
        self.max_steps = max_steps
        self.rng = np.random.RandomState(0)

    def reset(self, seed=None):
        if seed is not None:
            self.rng = np.random.RandomState(seed)
        self.pos = 0
        self.t = 0
        return self._obs(), {}

    def _obs(self):
        noise = self.rng.uniform(-0.05, 0.05, size=2)
        return np.array([self.pos / self.length, 1.0 - self.pos / self.length]) + noise

    def step(self, action):
        self.t += 1
        self.pos = max(0, self.pos + (1 if action == 1 else -1))
        terminated = self.pos == self.length
        truncated = self.t >= self.max_steps
        reward = 1.0 if terminated else -0.1
        return self._obs(), reward, terminated, truncated, {}


class Policy(nn.Module):
    def __init__(self):
        super(Policy, self).__init__()
        self.affine1 = nn.Linear(2, 16)
        self.dropout = nn.Dropout(p=0.6)
        self.affine2 = nn.Linear(16, 2)

        self.saved_log_probs = []
        self.rewards = []

    def forward(self, x):
        x = self.affine1(x)
        x = self.dropout(x)
        x = F.relu(x)
        action_scores = self.affine2(x)
        return F.softmax(action_scores, dim=1)


def select_action(policy, state):
    state = torch.from_numpy(state).float().unsqueeze(0)
    probs = policy(state)
    m = Categorical(probs)
    action = m.sample()
    policy.saved_log_probs.append(m.log_prob(action))
    return action.item()


def finish_episode(policy, optimizer, gamma, eps):
    R = 0
    policy_loss = []
    returns = []
    for r in policy.rewards[::-1]:
        R = r + gamma * R
        returns.insert(0, R)
    returns = torch.tensor(returns)
    returns = (returns - returns.mean()) / (returns.std() + eps)
    for log_prob, R in zip(policy.saved_log_probs, returns):
        policy_loss.append(-log_prob * R)
    optimizer.zero_grad()
    policy_loss = torch.cat(policy_loss).sum()
    policy_loss.backward()
    optimizer.step()
    del policy.rewards[:]
    del policy.saved_log_probs[:]
    return policy_loss.item()


def main():
    parser = argparse.ArgumentParser(description='PyTorch REINFORCE example')
    parser.add_argument('--gamma', type=float, default=0.99)
    parser.add_argument('--seed', type=int, default=543)
    parser.add_argument('--episodes', type=int, default=12)
    parser.add_argument('--log-interval', type=int, default=1)
    args = parser.parse_args()

    env = Corridor()
    torch.manual_seed(args.seed)
    policy = Policy()
    optimizer = optim.Adam(policy.parameters(), lr=1e-2)
    eps = np.finfo(np.float32).eps.item()
    print(policy, eps)

    running_reward = 0
    for i_episode in range(1, args.episodes + 1):
        state, _ = env.reset(seed=args.seed + i_episode)
        ep_reward = 0
        actions = []
        for t in range(1, 10000):  # Don't infinite loop while learning
            action = select_action(policy, state)
            actions.append(action)
            state, reward, done, truncated, _ = env.step(action)
            policy.rewards.append(reward)
            ep_reward += reward
            if done or truncated:
                break

        running_reward = 0.05 * ep_reward + (1 - 0.05) * running_reward
        loss = finish_episode(policy, optimizer, args.gamma, eps)
        if i_episode % args.log_interval == 0:
            print('Episode {}\tLast reward: {:.2f}\tAverage reward: {:.2f}\tloss {:.4f}\t{}'.format(
                i_episode, ep_reward, running_reward, loss, ''.join(map(str, actions))))

    policy.eval()
    with torch.no_grad():
        probs = policy(torch.tensor([[0.0, 1.0], [0.5, 0.5]]))
    m = Categorical(probs)
    print(m, m.probs.shape, m.entropy(), m.sample((3,)).tolist())
    print(m.log_prob(torch.tensor([1, 0])), torch.allclose(m.logits.exp().sum(-1), torch.ones(2)))


if __name__ == '__main__':
    main()
